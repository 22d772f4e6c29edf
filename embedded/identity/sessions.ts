// Sessions: issuance and the ory_kratos_session cookie (§1.5), lookup by X-Session-Token / cookie /
// bearer token, and the session JSON shape (§12.2).
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { durationMs } from './config.ts';
import { serializeCookie, type Ctx } from './http.ts';
import { publicIdentity } from './identities.ts';
import type { Service } from './service.ts';
import type { StoredIdentity, StoredSession } from './store.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function randomAlnum(n: number): string {
  const b = randomBytes(n);
  let s = '';
  for (let i = 0; i < n; i++) s += ALNUM[b[i]! % ALNUM.length];
  return s;
}

function sign(svc: Service, payload: string): string {
  return createHmac('sha256', svc.cookieSecret).update(payload).digest('base64url');
}

function encodeCookie(svc: Service, s: StoredSession): string {
  const payload = Buffer.from(JSON.stringify({ t: s.token, e: s.expires_at, n: randomAlnum(16) })).toString('base64url');
  return `${payload}.${sign(svc, payload)}`;
}

/** The expiry recorded in the request's session cookie (ISO string), if valid. */
export function sessionCookieExpiry(svc: Service, ctx: Ctx): string | undefined {
  const v = ctx.cookies[svc.config.session.cookie.name];
  if (!v || !decodeCookie(svc, v)) return undefined;
  try {
    const o = JSON.parse(Buffer.from(v.split('.')[0]!, 'base64url').toString('utf8')) as { e?: unknown };
    return typeof o.e === 'string' ? o.e : undefined;
  } catch {
    return undefined;
  }
}

function decodeCookie(svc: Service, v: string): string | undefined {
  const [payload, mac] = v.split('.');
  if (!payload || !mac) return undefined;
  const expected = Buffer.from(sign(svc, payload));
  const got = Buffer.from(mac);
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) return undefined;
  try {
    const o = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { t?: unknown };
    return typeof o.t === 'string' ? o.t : undefined;
  } catch {
    return undefined;
  }
}

function cookieAttrs(svc: Service) {
  const c = svc.config.session.cookie;
  const g = svc.config.cookies;
  const secure = c.secure ?? g.secure ?? false;
  return { path: c.path ?? g.path ?? '/', domain: c.domain ?? g.domain, httpOnly: true, secure, sameSite: c.same_site ?? g.same_site ?? 'Lax' };
}

export function setSessionCookie(svc: Service, ctx: Ctx, s: StoredSession): void {
  const name = svc.config.session.cookie.name;
  const exp = new Date(s.expires_at);
  const persistent = svc.config.session.cookie.persistent !== false;
  ctx.setCookies = ctx.setCookies.filter((c) => !c.startsWith(`${name}=`));
  ctx.setCookies.push(
    serializeCookie(name, encodeCookie(svc, s), {
      ...cookieAttrs(svc),
      ...(persistent ? { expires: exp, maxAge: Math.max(0, Math.floor((exp.getTime() - svc.clock.now()) / 1000)) } : {}),
    }),
  );
}

export function clearSessionCookie(svc: Service, ctx: Ctx): void {
  const name = svc.config.session.cookie.name;
  ctx.setCookies = ctx.setCookies.filter((c) => !c.startsWith(`${name}=`));
  ctx.setCookies.push(serializeCookie(name, '', { ...cookieAttrs(svc), expires: new Date(0), maxAge: 0 }));
}

export interface Current {
  session: StoredSession;
  identity: StoredIdentity;
}

/** Whether the request carries any session credential at all. */
export function hasCredentials(svc: Service, ctx: Ctx): boolean {
  return Boolean(
    ctx.req.headers['x-session-token'] || ctx.cookies[svc.config.session.cookie.name] || /^bearer /i.test(String(ctx.req.headers.authorization ?? '')),
  );
}

export function isSessionActive(svc: Service, s: StoredSession, i: StoredIdentity | undefined): boolean {
  return s.active && new Date(s.expires_at).getTime() > svc.clock.now() && i?.state === 'active';
}

/** Lookup order: X-Session-Token, cookie, Authorization: Bearer. */
export function currentSession(svc: Service, ctx: Ctx): Current | undefined {
  const tokens: string[] = [];
  const header = ctx.req.headers['x-session-token'];
  if (typeof header === 'string' && header) tokens.push(header);
  const cookie = ctx.cookies[svc.config.session.cookie.name];
  if (cookie) {
    const t = decodeCookie(svc, cookie);
    if (t) tokens.push(t);
  }
  const auth = String(ctx.req.headers.authorization ?? '');
  if (/^bearer /i.test(auth)) tokens.push(auth.slice(7).trim());
  for (const t of tokens) {
    const s = svc.store.getSessionByToken(t);
    if (!s) continue;
    const i = svc.store.getIdentity(s.identity_id);
    if (i && isSessionActive(svc, s, i)) return { session: s, identity: i };
    return undefined;
  }
  return undefined;
}

export interface IssueOptions {
  /** false: an API flow's session, a token only. */
  cookie?: boolean;
  /** The social sign-in provider of this method (its AMR entry names it). */
  provider?: string;
  /** Methods completed along with it (account linking adds `oidc` after the password). */
  alsoCompleted?: string[];
}

/** Creates (or, for a refresh of the same identity, re-authenticates) a session and sets the cookie. */
export function issueSession(svc: Service, ctx: Ctx, identity: StoredIdentity, method: string, previous?: Current, options: IssueOptions = {}): StoredSession {
  const now = new Date(svc.clock.now());
  const nowS = now.toISOString();
  const lifespan = durationMs(svc.config.session.lifespan, 24 * 3600_000);
  const completed: StoredSession['authentication_methods'] = [
    { method, aal: 'aal1', completed_at: nowS, ...(options.provider ? { provider: options.provider } : {}) },
    ...(options.alsoCompleted ?? []).map((m) => ({ method: m, aal: 'aal1', completed_at: nowS })),
  ];
  let s: StoredSession;
  if (previous && previous.identity.id === identity.id) {
    s = previous.session;
    s.authenticated_at = nowS;
    s.authentication_methods.push(...completed);
    s.expires_at = new Date(now.getTime() + lifespan).toISOString();
  } else {
    s = {
      id: randomUUID(),
      token: `ory_st_${randomAlnum(32)}`,
      logout_token: `ory_lo_${randomAlnum(32)}`,
      identity_id: identity.id,
      active: true,
      expires_at: new Date(now.getTime() + lifespan).toISOString(),
      authenticated_at: nowS,
      issued_at: nowS,
      aal: 'aal1',
      authentication_methods: completed,
      devices: [{ id: randomUUID(), ip_address: ctx.ip, user_agent: ctx.userAgent, location: '' }],
    };
  }
  svc.store.saveSession(s);
  // An API flow's session is a token only: no cookie, and the browser's anti-CSRF token is not touched.
  if (options.cookie === false) return s;
  setSessionCookie(svc, ctx, s);
  // A new identity in this browser gets a new anti-CSRF token (§1.4).
  // IssueCookie: a new anti-CSRF token unless the browser's session already was this identity's.
  const before = previous ?? currentSession(svc, ctx);
  if (!before || before.identity.id !== identity.id) svc.csrf.regenerate(ctx);
  return s;
}

export function serializeSession(svc: Service, s: StoredSession, identity: StoredIdentity | undefined, tokenized?: string): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: s.id,
    active: isSessionActive(svc, s, identity),
    expires_at: s.expires_at,
    authenticated_at: s.authenticated_at,
    authenticator_assurance_level: s.aal,
    authentication_methods: s.authentication_methods,
    issued_at: s.issued_at,
  };
  if (identity) o.identity = publicIdentity(svc, identity);
  o.devices = s.devices;
  if (tokenized) o.tokenized = tokenized;
  return o;
}
