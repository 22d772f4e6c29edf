/**
 * Google One Tap's cookies and its Kratos submit (decision 120). Route: server/routes/google-one-tap.ts.
 *
 *   oneTapEnabled(config)                 GOOGLE_CLIENT_ID is set; oneTapBody: what is posted
 *   offerCookies(req, res, config)        → { nonce, csrfToken }: this browser's One Tap nonce (signed cookie,
 *                                         HttpOnly) and double-submit token (cookie `g_csrf_token`, Google's
 *                                         name), each reused while it lives, else issued
 *   doubleSubmitHolds(req, bodyToken)     cookie `g_csrf_token` present and equal to the posted field
 *   issuedNonce(req, config)              the nonce this browser was given, when genuine and unexpired
 *   forgetOneTap(res, config)             expires the nonce, the token and a handed-over credential
 *   stashCredential / stashedCredential   a credential handed over in a link, kept (HttpOnly, 5 min, its own
 *                                         path) until the user confirms it: it leaves the URL at once
 *   unverifiedClaims(credential)          the payload, NOT verified (Kratos verifies): for display only
 *   submitIdToken(req, res, idToken, nonce?) a new login flow, then `method=oidc`, `provider=google`,
 *                                         `id_token`, `id_token_nonce` → { flow, outcome }
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ROUTES } from '../../core/routes.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import type { Config } from '../config.ts';
import { createFlow, flowCsrfToken, submitFlow, type KratosAnswer, type SubmitOutcome } from './kratos.ts';

type Cookied = Pick<Config, 'isProduction' | 'SESSION_SECRET'>;

/** Google's name for the double-submit cookie its library sets; ours follows it (decision 120). */
export const G_CSRF_COOKIE = 'g_csrf_token';
/** Kratos's provider id for Google (the identity service's `selfservice.methods.oidc` entry). */
export const GOOGLE_PROVIDER = 'google';

const OFFER_TTL_MS = 30 * 60 * 1000;
const HANDOVER_TTL_MS = 5 * 60 * 1000;
/** Fresh offers reuse a nonce with at least this long to live, so a page kept open a while still works. */
const REUSE_MARGIN_MS = 5 * 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** A Google ID token is about 1 KB; a cookie holds 4 KB. */
export const MAX_CREDENTIAL_LENGTH = 3500;

/** What One Tap (or the confirmation of a handed-over credential) posts to ROUTES.googleOneTap. */
export const oneTapBody = z.object({
  credential: z.string().max(4096).optional().describe('The ID token Google One Tap handed over'),
  g_csrf_token: z.string().max(256).optional().describe('The value of the `g_csrf_token` cookie (double submit)'),
  handed_over: z.literal('1').optional().describe('Confirms the credential a link handed over (kept in a cookie)'),
});

export const oneTapEnabled = (config: Pick<Config, 'GOOGLE_CLIENT_ID'>): boolean => config.GOOGLE_CLIENT_ID !== '';

export const nonceCookieName = (config: Pick<Config, 'isProduction'>) => (config.isProduction ? '__Host-one_tap_nonce' : 'one_tap_nonce');
export const handoverCookieName = (config: Pick<Config, 'isProduction'>) => (config.isProduction ? '__Secure-one_tap_credential' : 'one_tap_credential');

const randomToken = () => randomBytes(32).toString('base64url');
const cookiesOf = (req: Request) => (req.cookies ?? {}) as Record<string, unknown>;

const keys = new Map<string, Buffer>();
function mac(secret: string, text: string): string {
  let key = keys.get(secret);
  if (!key) {
    key = createHmac('sha256', secret).update('accounts one-tap nonce v1').digest();
    keys.set(secret, key);
  }
  return createHmac('sha256', key).update(text).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The nonce cookie as `nonce.expiresAtMs.mac`: genuine and unexpired, or nothing. */
function readNonce(req: Request, config: Cookied): { nonce: string; expiresAt: number } | undefined {
  const raw = cookiesOf(req)[nonceCookieName(config)];
  if (typeof raw !== 'string' || raw.length > 200) return undefined;
  const [nonce = '', expires = '', signature = ''] = raw.split('.');
  if (!TOKEN.test(nonce) || !sameText(signature, mac(config.SESSION_SECRET, `${nonce}.${expires}`))) return undefined;
  const expiresAt = Number(expires);
  return Number.isFinite(expiresAt) && expiresAt > Date.now() ? { nonce, expiresAt } : undefined;
}

export function issuedNonce(req: Request, config: Cookied): string | undefined {
  return readNonce(req, config)?.nonce;
}

function doubleSubmitCookie(req: Request): string | undefined {
  const value = cookiesOf(req)[G_CSRF_COOKIE];
  return typeof value === 'string' && TOKEN.test(value) ? value : undefined;
}

/** Sets the double-submit cookie unless a usable one is there; returns its value for the form. */
export function doubleSubmitToken(req: Request, res: Response, config: Cookied): string {
  const existing = doubleSubmitCookie(req);
  if (existing) return existing;
  const token = randomToken();
  // Not HttpOnly: Google's library writes this cookie itself when it posts to a login_uri.
  res.cookie(G_CSRF_COOKIE, token, { sameSite: 'strict', secure: config.isProduction, path: '/', maxAge: OFFER_TTL_MS });
  return token;
}

export function offerCookies(req: Request, res: Response, config: Cookied): { nonce: string; csrfToken: string } {
  let nonce = readNonce(req, config);
  if (!nonce || nonce.expiresAt - Date.now() < REUSE_MARGIN_MS) {
    nonce = { nonce: randomToken(), expiresAt: Date.now() + OFFER_TTL_MS };
    const value = `${nonce.nonce}.${nonce.expiresAt}`;
    res.cookie(nonceCookieName(config), `${value}.${mac(config.SESSION_SECRET, value)}`, {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.isProduction,
      path: '/',
      maxAge: OFFER_TTL_MS,
    });
  }
  return { nonce: nonce.nonce, csrfToken: doubleSubmitToken(req, res, config) };
}

/** Google's rule for its post: the `g_csrf_token` cookie is there and the body carries the same value. */
export function doubleSubmitHolds(req: Request, bodyToken: unknown): boolean {
  const cookie = doubleSubmitCookie(req);
  return cookie !== undefined && typeof bodyToken === 'string' && sameText(cookie, bodyToken);
}

export function isCredentialShaped(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_CREDENTIAL_LENGTH && JWT.test(value);
}

export function stashCredential(res: Response, config: Cookied, credential: string): void {
  res.cookie(handoverCookieName(config), credential, {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.isProduction,
    path: ROUTES.googleOneTap,
    maxAge: HANDOVER_TTL_MS,
  });
}

export function stashedCredential(req: Request, config: Cookied): string | undefined {
  const value = cookiesOf(req)[handoverCookieName(config)];
  return isCredentialShaped(value) ? value : undefined;
}

/** Every One Tap value is single-use: gone after a submission, whatever its outcome. */
export function forgetOneTap(res: Response, config: Cookied): void {
  res.clearCookie(nonceCookieName(config), { httpOnly: true, sameSite: 'lax', secure: config.isProduction, path: '/' });
  res.clearCookie(G_CSRF_COOKIE, { sameSite: 'strict', secure: config.isProduction, path: '/' });
  res.clearCookie(handoverCookieName(config), { httpOnly: true, sameSite: 'lax', secure: config.isProduction, path: ROUTES.googleOneTap });
}

export type UnverifiedClaims = { email?: string; exp?: number; nonce?: string };

export function unverifiedClaims(credential: string): UnverifiedClaims | undefined {
  try {
    const payload = JSON.parse(Buffer.from(credential.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    return {
      email: typeof payload.email === 'string' ? payload.email : undefined,
      exp: typeof payload.exp === 'number' ? payload.exp : undefined,
      nonce: typeof payload.nonce === 'string' ? payload.nonce : undefined,
    };
  } catch {
    return undefined;
  }
}

export type IdTokenSubmit = { created: KratosAnswer<KratosFlow>; flow?: KratosFlow; outcome?: SubmitOutcome };

/**
 * A login flow of its own for this submission (return_to stays in our query, as on /sign-in), then the
 * ID token. Kratos answers a JSON caller 200 without a redirect, turns an unknown Google account into a
 * registration in the same request, and answers a taken e-mail with its account-linking login flow.
 */
export async function submitIdToken(req: Request, res: Response, idToken: string, nonce: string | undefined): Promise<IdTokenSubmit> {
  const created = await createFlow(req, res, 'login');
  if (!created.ok) return { created };
  const body = {
    method: 'oidc',
    provider: GOOGLE_PROVIDER,
    id_token: idToken,
    csrf_token: flowCsrfToken(created.data),
    ...(nonce ? { id_token_nonce: nonce } : {}),
  };
  return { created, flow: created.data, outcome: await submitFlow(req, res, 'login', created.data.id, body) };
}

/** Which screen shows a flow Kratos answered with: its `ui.action` names the self-service flow. */
export function screenOfFlow(flow: KratosFlow): typeof ROUTES.signIn | typeof ROUTES.signUp {
  return /\/self-service\/registration\b/.test(flow.ui.action) ? ROUTES.signUp : ROUTES.signIn;
}
