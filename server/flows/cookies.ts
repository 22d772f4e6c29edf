/**
 * Cookie plumbing between the browser and Kratos.
 *
 * - `relaySetCookies(res, values)`: copies every Kratos `Set-Cookie` onto our response with any `Domain`
 *   attribute removed, so the cookie belongs to the host the browser is talking to (ours), never to
 *   Kratos's host or a parent domain.
 * - `CookieJar`: the Cookie header to forward to Kratos for the rest of this request. It starts as the
 *   browser's header and takes in every Set-Cookie we relay, so a second call in the same request
 *   (e.g. submit → 410 → create a new flow) carries the CSRF cookie Kratos has just issued.
 * - `hasSessionCookie(req)`: whether the browser holds anything that looks like an Ory session cookie;
 *   without one, a whoami call can only answer 401, so guards skip it.
 */
import type { Request, Response } from 'express';

const DOMAIN_ATTRIBUTE = /;\s*domain=[^;]*/gi;
const SESSION_COOKIE = /(?:^|;\s*)ory_(?:kratos_)?session[^=]*=/;

export function stripDomain(setCookie: string): string {
  return setCookie.replace(DOMAIN_ATTRIBUTE, '');
}

export function relaySetCookies(res: Response, values: readonly string[] | string | undefined): void {
  if (!values) return;
  const list = Array.isArray(values) ? values : [values as string];
  if (list.length === 0) return;
  res.append('Set-Cookie', list.map(stripDomain));
}

export function hasSessionCookie(req: Request): boolean {
  return holdsSessionCookie(req.headers.cookie);
}

/** Whether a Cookie header (the browser's, or a jar's: what Kratos has just set included) holds an Ory session cookie. */
export function holdsSessionCookie(header: string | undefined): boolean {
  return SESSION_COOKIE.test(header ?? '');
}

export class CookieJar {
  readonly #cookies = new Map<string, string>();

  constructor(header: string | undefined) {
    for (const part of (header ?? '').split(';')) {
      const index = part.indexOf('=');
      if (index <= 0) continue;
      const name = part.slice(0, index).trim();
      if (name) this.#cookies.set(name, part.slice(index + 1).trim());
    }
  }

  /** Applies Set-Cookie values as a browser would: a past expiry or Max-Age ≤ 0 deletes the cookie. */
  apply(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const index = pair.indexOf('=');
      if (index <= 0) continue;
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', raw = ''] = attribute.split('=');
        const lower = key.trim().toLowerCase();
        if (lower === 'max-age') return Number(raw.trim()) <= 0;
        if (lower === 'expires') return Date.parse(raw.trim()) < Date.now();
        return false;
      });
      if (expired) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  has(name: string): boolean {
    return this.#cookies.has(name);
  }

  header(): string | undefined {
    if (this.#cookies.size === 0) return undefined;
    let out = '';
    for (const [name, value] of this.#cookies) out += (out ? '; ' : '') + `${name}=${value}`;
    return out;
  }
}

/** The request's jar, created on first use. */
export function cookieJar(req: Request, res: Response): CookieJar {
  const existing = res.locals.kratosCookieJar as CookieJar | undefined;
  if (existing) return existing;
  const jar = new CookieJar(req.headers.cookie);
  res.locals.kratosCookieJar = jar;
  return jar;
}
