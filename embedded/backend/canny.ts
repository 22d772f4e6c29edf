// Canny SSO: a JWT signed HS256 with the company's private key carrying the user's
// email, id, name and avatarURL; the browser is sent to Canny's SSO redirect endpoint.
import { SignJWT } from 'jose';

export interface CannyUser {
  email: string;
  id: string;
  name: string;
  avatarURL?: string;
}

/** `nowMs` becomes `iat` (jose would otherwise read the real time, not the stand-in's clock). */
export async function cannySsoToken(user: CannyUser, privateKey: string, nowMs: number): Promise<string> {
  const claims: Record<string, string> = { email: user.email, id: user.id, name: user.name };
  if (user.avatarURL) claims.avatarURL = user.avatarURL;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(Math.floor(nowMs / 1000))
    .sign(new TextEncoder().encode(privateKey));
}

export function cannyRedirectUrl(companyId: string, ssoToken: string, redirect: string | null): string {
  const url = new URL('https://canny.io/api/redirects/sso');
  url.searchParams.set('companyID', companyId);
  url.searchParams.set('ssoToken', ssoToken);
  if (redirect) url.searchParams.set('redirect', redirect);
  return url.toString();
}

/** The redirect must be an https address on a Canny host (or one configured as the board's custom domain). */
export function isAllowedCannyRedirect(value: string, allowedHosts: string[]): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  return allowedHosts.some((pattern) => {
    const p = pattern.toLowerCase();
    if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
    return host === p;
  });
}
