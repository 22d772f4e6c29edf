// Kratos's continuity manager (continuity/manager_cookie.go): a flow step parks a container server-side
// and names it in the `ory_kratos_continuity` cookie, which holds one entry per container name (a gorilla
// session map: the settings strategies and social sign-in each keep their own entry side by side), so a
// later request of the same browser can resume it. The cookie is signed here (gorilla's securecookie in
// Kratos); clients treat it as opaque either way.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { KratosError } from './errors.ts';
import { serializeCookie, type Ctx } from './http.ts';
import type { Service } from './service.ts';

export const CONTINUITY_COOKIE = 'ory_kratos_continuity';

/** Where the containers live: the flows table, under a kind of their own. */
const KIND = 'continuity';

export interface Container<T = unknown> {
  id: string;
  name: string;
  /** ms since the epoch */
  expires_at: number;
  identity_id?: string;
  payload: T;
}

type Entries = Record<string, string>;

function sign(svc: Service, payload: string): string {
  return createHmac('sha256', svc.cookieSecret).update(`continuity.${payload}`).digest('base64url');
}

/** The entries the request's cookie names, or an empty map when it has none or a forged one. */
export function readEntries(svc: Service, ctx: Ctx): Entries {
  const raw = ctx.cookies[CONTINUITY_COOKIE];
  if (!raw) return {};
  const [payload, mac] = raw.split('.');
  if (!payload || !mac) return {};
  const expected = Buffer.from(sign(svc, payload));
  const got = Buffer.from(mac);
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) return {};
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Entries) : {};
  } catch {
    return {};
  }
}

/**
 * Writes the cookie with these entries, as v1.3.1 writes its gorilla session cookie: Expires and a
 * Max-Age of 30 days, HttpOnly, SameSite=Lax, Path=/ (the containers expire on their own). An entry set
 * earlier in the same answer is kept.
 */
export function writeEntries(svc: Service, ctx: Ctx, entries: Entries): void {
  const maxAge = 30 * 24 * 3600;
  const payload = Buffer.from(JSON.stringify(entries)).toString('base64url');
  ctx.setCookies = ctx.setCookies.filter((c) => !c.startsWith(`${CONTINUITY_COOKIE}=`));
  ctx.setCookies.push(
    serializeCookie(CONTINUITY_COOKIE, `${payload}.${sign(svc, payload)}`, {
      path: '/',
      expires: new Date(svc.clock.now() + maxAge * 1000),
      maxAge,
      httpOnly: true,
      sameSite: 'Lax',
    }),
  );
  ctx.continuity = entries;
}

/** The entries as this answer will leave them (what an earlier write of this request set, else the request's). */
export function currentEntries(svc: Service, ctx: Ctx): Entries {
  return ctx.continuity ?? readEntries(svc, ctx);
}

/** The value of one entry (for strategies that keep their own state, as the settings flow does). */
export function entry(svc: Service, ctx: Ctx, name: string): string | undefined {
  return currentEntries(svc, ctx)[name];
}

export function setEntry(svc: Service, ctx: Ctx, name: string, value: string): void {
  writeEntries(svc, ctx, { ...currentEntries(svc, ctx), [name]: value });
}

/**
 * Abort: the cookie written back without this entry, only when it named one (v1.3.1 finds no session
 * to write when the entry is missing).
 */
export function unsetEntry(svc: Service, ctx: Ctx, name: string): void {
  const { [name]: gone, ...rest } = currentEntries(svc, ctx);
  if (gone !== undefined) writeEntries(svc, ctx, rest);
}

/** A used-up entry (Continue): the cookie written back without it, even when nothing is left in it. */
export function consumeEntry(svc: Service, ctx: Ctx, name: string): void {
  const { [name]: _gone, ...rest } = currentEntries(svc, ctx);
  writeEntries(svc, ctx, rest);
}

/** Pause: stores the container and names it in the cookie. */
export function pause<T>(svc: Service, ctx: Ctx, name: string, payload: T, lifespanMs: number, identityId?: string): Container<T> {
  const c: Container<T> = { id: randomUUID(), name, expires_at: svc.clock.now() + lifespanMs, payload };
  if (identityId) c.identity_id = identityId;
  svc.store.saveFlow(KIND, c);
  setEntry(svc, ctx, name, c.id);
  return c;
}

/** continuity.ErrNotResumable: the browser has no (valid) container of that name. */
export function notResumable(): KratosError {
  return new KratosError(400, {
    reason:
      "The browser does not contain the necessary cookie to resume the session. This is a security violation and was blocked. Please clear your browser's cookies and cache and try again!",
    message: 'no resumable session found',
  });
}

/**
 * Continue: the container the cookie names. With `expireInMs` (WithExpireInsteadOfDelete) it stays
 * usable that much longer and the cookie keeps its entry; otherwise it is used up and the entry removed.
 */
export function resume<T>(svc: Service, ctx: Ctx, name: string, options: { expireInMs?: number; identityId?: string } = {}): Container<T> {
  const id = entry(svc, ctx, name);
  const c = id ? svc.store.getFlow<Container<T>>(KIND, id) : undefined;
  if (!c || c.name !== name || c.expires_at < svc.clock.now()) {
    unsetEntry(svc, ctx, name);
    throw notResumable();
  }
  if (options.identityId && c.identity_id !== options.identityId) {
    throw new KratosError(403, { reason: 'The flow has been blocked for security reasons because it was initiated by another person..' });
  }
  if (options.expireInMs !== undefined) {
    // Kratos truncates the new expiry to the second.
    c.expires_at = Math.floor((svc.clock.now() + options.expireInMs) / 1000) * 1000;
    svc.store.saveFlow(KIND, c);
  } else {
    unsetEntry(svc, ctx, name);
    const usedUp: Container<T> = { ...c, expires_at: 0 };
    svc.store.saveFlow(KIND, usedUp);
  }
  return c;
}
