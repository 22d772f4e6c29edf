// Anti-CSRF double submit like ory/nosurf (contract §1.4): cookie csrf_token_<sha256(base url)> holding
// base64(32 random bytes); forms carry base64(pad || token XOR pad) (88 chars), new on every response.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { KratosError } from './errors.ts';
import { serializeCookie, type Ctx } from './http.ts';
import type { IdentityConfig } from './config.ts';

export const csrfCookieName = (publicBaseUrl: string): string => `csrf_token_${createHash('sha256').update(publicBaseUrl).digest('hex')}`;

function decodeToken(v: string | undefined, len: number): Buffer | undefined {
  if (!v) return undefined;
  let b: Buffer;
  try {
    b = Buffer.from(decodeURIComponent(v), 'base64');
  } catch {
    return undefined;
  }
  return b.length === len ? b : undefined;
}

export function mask(token: Buffer): string {
  const pad = randomBytes(32);
  const out = Buffer.alloc(64);
  pad.copy(out, 0);
  for (let i = 0; i < 32; i++) out[32 + i] = token[i]! ^ pad[i]!;
  return out.toString('base64');
}

export function unmask(masked: string): Buffer | undefined {
  const b = decodeToken(masked, 64);
  if (!b) return undefined;
  const t = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) t[i] = b[32 + i]! ^ b[i]!;
  return t;
}

export class Csrf {
  name: string;
  config: IdentityConfig;
  constructor(name: string, config: IdentityConfig) {
    this.name = name;
    this.config = config;
  }

  fromCookie(ctx: Ctx): Buffer | undefined {
    return decodeToken(ctx.cookies[this.name], 32);
  }

  private setCookie(ctx: Ctx, token: Buffer): void {
    const c = this.config.cookies;
    const secure = c.secure === true;
    ctx.setCookies = ctx.setCookies.filter((s) => !s.startsWith(`${this.name}=`));
    ctx.setCookies.push(
      serializeCookie(this.name, token.toString('base64'), {
        path: c.path || '/',
        domain: c.domain,
        maxAge: 31536000,
        httpOnly: true,
        secure,
        sameSite: secure ? c.same_site || 'Lax' : 'Lax',
      }),
    );
  }

  /** The real token of this request/response: the cookie's, or a new one (cookie issued). */
  ensure(ctx: Ctx): Buffer {
    if (ctx.csrfToken) return ctx.csrfToken;
    const existing = this.fromCookie(ctx);
    if (existing) {
      ctx.csrfToken = existing;
      return existing;
    }
    return this.regenerate(ctx);
  }

  regenerate(ctx: Ctx): Buffer {
    const t = randomBytes(32);
    ctx.csrfToken = t;
    this.setCookie(ctx, t);
    return t;
  }

  /** Masked token for a form node of this response. */
  masked(ctx: Ctx): string {
    return mask(this.ensure(ctx));
  }

  /** Flow submit check: body csrf_token against the cookie. */
  verifyBody(ctx: Ctx, bodyToken: unknown): void {
    const cookie = this.fromCookie(ctx);
    const real = typeof bodyToken === 'string' && bodyToken !== '' ? unmask(bodyToken) : undefined;
    if (!cookie || !real || !timingSafeEqual(real, cookie)) throw csrfError();
  }

  /** getFlow check: the request's cookie must carry the token stored with the flow. */
  verifyFlowToken(ctx: Ctx, flowToken: string): void {
    const cookie = this.fromCookie(ctx);
    const expected = Buffer.from(flowToken, 'base64');
    if (!cookie || expected.length !== 32 || !timingSafeEqual(expected, cookie)) throw csrfError();
  }
}

// The texts of Kratos v1.3.1 (x/nosurf.go). There every CSRF error is derived from one base error with
// herodot's WithDetail, which copies the error but not its details map: all of them share one map, and
// the declarations that run last at start-up leave it holding the "token not sent" hint and the
// "do not match" reject reason. So whatever went wrong (no Cookie header, no anti-CSRF cookie, no token,
// a wrong token), v1.3.1 answers with these same details, and so does the stand-in. (Newer Kratos
// tells the cases apart and links ory.com; the contract describes that.)
const CSRF_DETAILS = {
  docs: 'https://www.ory.sh/kratos/docs/debug/csrf',
  hint: 'The anti-CSRF cookie was found but the CSRF token was not included in the HTTP request body (csrf_token) nor in the HTTP Header (X-CSRF-Token).',
  reject_reason:
    'The HTTP Cookie Header was set and a CSRF token was sent but they do not match. We recommend deleting all cookies for this domain and retrying the flow.',
};

export function csrfError(): KratosError {
  return new KratosError(403, {
    id: 'security_csrf_violation',
    reason:
      'Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.',
    details: { ...CSRF_DETAILS },
    message: 'the request was rejected to protect you from Cross-Site-Request-Forgery',
  });
}
