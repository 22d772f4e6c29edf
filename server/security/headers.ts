import { randomBytes } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';
import onHeaders from 'on-headers';
import type { Config } from '../config.ts';
import { liveSocketSources } from '../socket/token.ts';

const NONCE_BYTES = 16;
const NONCES_PER_FILL = 256;
let randomPool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * 128 fresh random bits, from a pool the CSPRNG refills 4 KiB at a time (each byte handed out once):
 * one OS-backed call per page was a measurable share of serving one. Node's randomUUID does the same.
 */
export function nextNonce(): string {
  if (poolOffset + NONCE_BYTES > randomPool.length) {
    randomPool = randomBytes(NONCE_BYTES * NONCES_PER_FILL);
    poolOffset = 0;
  }
  const nonce = randomPool.toString('base64', poolOffset, poolOffset + NONCE_BYTES);
  poolOffset += NONCE_BYTES;
  return nonce;
}

/** A fresh 128-bit nonce per response, available to views as res.locals.cspNonce. */
export const cspNonce: RequestHandler = (_req, res, next) => {
  res.locals.cspNonce = nextNonce();
  next();
};

/**
 * Where our forms may post or be redirected after posting: ourselves, the identity service as the
 * browser sees it (Kratos flow forms post there and it redirects on), allowed return URLs, the OAuth2
 * provider and the configured social providers (OIDC_PROVIDER_ORIGINS: a social button's post is
 * answered with a 303 to the provider, and form-action covers redirects). None when unset.
 */
export function formActionSources(config: Config): string[] {
  const origins = new Set<string>([
    new URL(config.kratosBrowserUrl).origin,
    ...config.allowedReturnUrls.map((url) => url.origin),
    ...config.oidcProviderOrigins,
  ]);
  if (config.HYDRA_PUBLIC_URL) origins.add(new URL(config.HYDRA_PUBLIC_URL).origin);
  if (config.DOCUMENT_APP_URL) origins.add(new URL(config.DOCUMENT_APP_URL).origin);
  // The desktop gateway (decision 140): a sign-in post can end, through Hydra, at the app's loopback
  // listener on any port. CSP cannot name an IPv6 literal, so [::1] listeners are reached only by navigation.
  if (config.GATEWAY_DESKTOP_CLIENT_ID) origins.add('http://127.0.0.1:*');
  return ["'self'", ...origins];
}

/**
 * Google One Tap (decision 120): the origin of GOOGLE_GSI_SCRIPT_URL, only while GOOGLE_CLIENT_ID is set.
 * Google's setup guide names it in script-src (the script), frame-src (the prompt), connect-src (its calls)
 * and style-src (its stylesheet). Browsers that know 'strict-dynamic' ignore hosts in script-src (our
 * nonced island adding the script is what allows it there); the host is for those that do not.
 */
export function oneTapSources(config: Pick<Config, 'GOOGLE_CLIENT_ID' | 'GOOGLE_GSI_SCRIPT_URL'>): string[] {
  return config.GOOGLE_CLIENT_ID ? [new URL(config.GOOGLE_GSI_SCRIPT_URL).origin] : [];
}

/** The brand logo's origin when it is hosted elsewhere (BRAND_LOGO_URL as an https URL). */
function brandLogoOrigin(config: Config): string[] {
  return config.brand.logoUrl.startsWith('https://') ? [new URL(config.brand.logoUrl).origin] : [];
}

/**
 * Cookie consent, analytics and captcha (decision 170), each only while configured: the tag manager's
 * origin (its script, its hits and pixels), GA4's collection origins (ANALYTICS_ORIGINS) with it, the log
 * service (sendBeacon is connect-src), and the reCAPTCHA script's origin (its script and its widget frame).
 */
export function thirdPartySources(config: Config): { script: string[]; connect: string[]; img: string[]; frame: string[] } {
  const origin = (url: string) => new URL(url).origin;
  const gtm = config.GTM_ID ? [origin(config.GTM_SCRIPT_URL), ...config.ANALYTICS_ORIGINS.map(origin)] : [];
  const log = config.LOG_SERVICE_URL ? [origin(config.LOG_SERVICE_URL)] : [];
  const captcha = config.RECAPTCHA_SITE_KEY && config.RECAPTCHA_SECRET_KEY ? [origin(config.RECAPTCHA_SCRIPT_URL)] : [];
  const unique = (list: string[]) => [...new Set(list)];
  return {
    script: unique([...(config.GTM_ID ? [origin(config.GTM_SCRIPT_URL)] : []), ...captcha]),
    connect: unique([...gtm, ...log]),
    img: unique(gtm),
    frame: unique(captcha),
  };
}

/**
 * What only a document uses: on scripts, styles, images, JSON and redirects these are dead weight
 * (about 1 KB each), so they are taken off any answer that is not HTML just before it is sent.
 */
const DOCUMENT_ONLY_HEADERS = ['Content-Security-Policy', 'Cross-Origin-Opener-Policy', 'X-Frame-Options', 'Origin-Agent-Cluster'];

/**
 * Helmet with a strict, nonce-based CSP. Every answer gets the transport and sniffing headers (HSTS,
 * nosniff, Referrer-Policy, CORP); HTML documents, errors included, also the document ones. Headers
 * today's browsers ignore (X-XSS-Protection, X-Download-Options, X-Permitted-Cross-Domain-Policies,
 * X-DNS-Prefetch-Control) are not sent.
 */
export function securityHeaders(config: Config, styleHashes: readonly string[] = []): RequestHandler {
  const headers = helmetHeaders(config, styleHashes);
  return (req, res, next) => {
    onHeaders(res, () => {
      if (!String(res.getHeader('Content-Type') ?? '').startsWith('text/html')) for (const name of DOCUMENT_ONLY_HEADERS) res.removeHeader(name);
    });
    headers(req, res, next);
  };
}

/** `styleHashes`: CSP sources of <style> texts allowed without a nonce (the guest stylesheet: server/assets.ts guestStyleHash). */
function helmetHeaders(config: Config, styleHashes: readonly string[]): RequestHandler {
  const nonce = (_req: unknown, res: unknown) => `'nonce-${(res as { locals: { cspNonce: string } }).locals.cspNonce}'`;
  const gsi = oneTapSources(config);
  const third = thirdPartySources(config);
  const frames = [...gsi, ...third.frame];
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': [nonce, "'strict-dynamic'", ...gsi, ...third.script],
        'style-src': ["'self'", nonce, ...styleHashes, ...gsi],
        // Uploaded avatars from profile storage, and the configured providers' pictures (a linked account's avatar).
        'img-src': ["'self'", 'data:', 'blob:', config.avatarOrigin, ...config.oidcProviderOrigins, ...brandLogoOrigin(config), ...third.img],
        'font-src': ["'self'"],
        // An external live-session socket host (SOCKET_URL, decision 160) too.
        'connect-src': ["'self'", ...gsi, ...third.connect, ...liveSocketSources(config)],
        ...(frames.length > 0 ? { 'frame-src': ["'self'", ...frames] } : {}),
        'object-src': ["'none'"],
        'base-uri': ["'none'"],
        'frame-ancestors': ["'none'"],
        'form-action': formActionSources(config),
        ...(config.isProduction ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    // Flow ids and codes live in our URLs: never send them to another origin.
    referrerPolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
    // Legacy twin of frame-ancestors 'none' for browsers that predate CSP level 2.
    xFrameOptions: { action: 'deny' },
    xPoweredBy: false,
    xXssProtection: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xDnsPrefetchControl: false,
  });
}

/**
 * Adds sources to this response's CSP, already set by securityHeaders (it runs before the routes): an
 * OAuth2 page whose form leads, through Hydra's redirects, to the client's redirect URI (form-action
 * covers every redirect after a post), or that shows the client's logo (img-src). Decision 130.
 */
export function allowOnThisPage(res: Response, sources: { formAction?: readonly string[]; imgSrc?: readonly string[] }): void {
  let policy = res.getHeader('Content-Security-Policy');
  if (typeof policy !== 'string') return;
  const add = (directive: string, extra: readonly string[] | undefined) => {
    // Only origins reach the header: nothing that could end the directive or start another.
    const safe = (extra ?? []).filter((source) => /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(source));
    if (safe.length > 0) policy = (policy as string).replace(new RegExp(`(^|;)${directive} ([^;]*)`), `$1${directive} $2 ${safe.join(' ')}`);
  };
  add('form-action', sources.formAction);
  add('img-src', sources.imgSrc);
  res.setHeader('Content-Security-Policy', policy);
}
