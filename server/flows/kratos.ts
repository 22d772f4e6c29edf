/**
 * Kratos browser-flow helpers, shared by every flow screen (sign-in, sign-up, verification, recovery,
 * settings). Every call forwards the browser's cookies (through the request's CookieJar) and relays
 * every Set-Cookie of the answer — success or error — to our response, Domain stripped.
 *
 *   createFlow(req, res, kind, params?)        → KratosAnswer<KratosFlow>   GET /self-service/<kind>/browser
 *   getFlow(req, res, kind, id)                → KratosAnswer<KratosFlow>   GET /self-service/<kind>/flows?id=
 *   submitFlow(req, res, kind, id, body)       → SubmitOutcome              POST /self-service/<kind>?flow=
 *   loadFlow(req, res, kind, id?, params?)     → LoadedFlow                 reuse `id` while valid, else a new flow
 *   getFlowError(req, res, id)                 → KratosAnswer<{ error }>    GET /self-service/errors?id=
 *   createLogoutFlow / performLogout           logout flow and its token (contract §11)
 *
 * `loadFlow` is what GET handlers use: a missing, expired (410), unknown (404) or foreign (403, CSRF
 * cookie mismatch: a flow id from another browser) flow is replaced by a fresh one and `restarted` says
 * why, so the page can redirect to the new id. `session_already_available` comes back as
 * `{ alreadySignedIn: true }`.
 *
 * `submitFlow` classifies the answer (contract §6.4, §7.4, §9, §10):
 *   success (200 body) · invalid (400 + flow: show messages) · expired (410, with the new flow id) ·
 *   location (422 browser_location_change_required → redirect_browser_to) · csrf (403) · missing (404) ·
 *   signed_in (session_already_available) · error (anything else, status + body kept for the mapper).
 *   A sign-in to a disabled identity is `invalid` with message 4010011 however Kratos says it.
 * Kratos unreachable or past KRATOS_TIMEOUT_MS (a total deadline) throws AppError 503
 * `identity_unavailable` (server/flows/transport.ts); the error handler answers the translated 503.
 */
import type { Request, Response } from 'express';
import type { AppLocals } from '../locals.ts';
import { oryClients, type FrontendRequests } from '../ory.ts';
import { cookieJar, hasSessionCookie, relaySetCookies } from './cookies.ts';
import { identityOf, rotateAppSession, setsKratosSession } from '../security/session-rotation.ts';
import { kratosAdapter, type AdapterConfig } from './transport.ts';
import {
  isFlow,
  type FlowKind,
  type KratosErrorBody,
  type KratosErrorObject,
  type KratosFlow,
  type KratosSession,
  type UiText,
} from '../../core/kratos/types.ts';

export type KratosAnswer<T> = { ok: true; status: number; data: T } | { ok: false; status: number; data: unknown };

type RequestArgs = { url: string; options: object };
type CallOptions = { headers: Record<string, string> };

function setCookiesOf(headers: Record<string, string | string[]>): string[] {
  const value = headers['set-cookie'];
  if (!value) return [];
  return Array.isArray(value) ? value : [value];
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function clientsOf(req: Request) {
  return oryClients((req.app.locals as AppLocals).config);
}

/**
 * Runs one Kratos call with the request's cookies and relays what Kratos sets. `build` picks the SDK's
 * request builder (path, query, headers, JSON body, exactly as the SDK sends them); the request goes
 * out through the keep-alive transport, and every status comes back as a value (`ok: false` for
 * non-2xx) so callers branch on status like the contract does.
 */
export async function kratosCall<T>(
  req: Request,
  res: Response,
  build: (api: FrontendRequests, options: CallOptions) => Promise<RequestArgs>,
): Promise<KratosAnswer<T>> {
  const clients = clientsOf(req);
  const jar = cookieJar(req, res);
  const cookie = jar.header();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (cookie) headers.cookie = cookie;
  // Kratos records the browser's address and agent on sessions and flows.
  const userAgent = req.headers['user-agent'];
  if (userAgent) headers['user-agent'] = userAgent;
  if (req.ip) headers['x-forwarded-for'] = req.ip;
  const args = await build(clients.frontendRequests, { headers });
  const response = await kratosAdapter({
    ...(args.options as AdapterConfig),
    url: clients.publicBasePath + args.url,
    timeout: (req.app.locals as AppLocals).config.KRATOS_TIMEOUT_MS,
    validateStatus: () => true,
  });
  const setCookies = setCookiesOf(response.headers);
  const data = parseBody(response.data);
  if (setCookies.length > 0) {
    relaySetCookies(res, setCookies);
    jar.apply(setCookies);
    // Who is signed in may have changed (or signed out): our session id changes with it (no session fixation).
    if (setsKratosSession(setCookies)) await rotateAppSession(req, res, identityOf(data));
  }
  if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status, data: data as T };
  return { ok: false, status: response.status, data };
}

export type CreateFlowParams = { returnTo?: string; refresh?: boolean; loginChallenge?: string };

export function createFlow(req: Request, res: Response, kind: FlowKind, params: CreateFlowParams = {}) {
  const { returnTo, refresh, loginChallenge } = params;
  return kratosCall<KratosFlow>(req, res, (api, options) => {
    switch (kind) {
      case 'login':
        return api.createBrowserLoginFlow(refresh, undefined, returnTo, undefined, loginChallenge, undefined, undefined, undefined, options);
      case 'registration':
        return api.createBrowserRegistrationFlow(returnTo, loginChallenge, undefined, undefined, undefined, options);
      case 'recovery':
        return api.createBrowserRecoveryFlow(returnTo, undefined, options);
      case 'verification':
        return api.createBrowserVerificationFlow(returnTo, options);
      case 'settings':
        return api.createBrowserSettingsFlow(returnTo, undefined, undefined, options);
    }
  });
}

export function getFlow(req: Request, res: Response, kind: FlowKind, id: string) {
  return kratosCall<KratosFlow>(req, res, (api, options) => {
    switch (kind) {
      case 'login':
        return api.getLoginFlow(id, undefined, options);
      case 'registration':
        return api.getRegistrationFlow(id, undefined, options);
      case 'recovery':
        return api.getRecoveryFlow(id, undefined, options);
      case 'verification':
        return api.getVerificationFlow(id, undefined, options);
      case 'settings':
        return api.getSettingsFlow(id, undefined, undefined, options);
    }
  });
}

export type SubmitOutcome =
  | { type: 'success'; status: number; data: Record<string, unknown> & { continue_with?: KratosFlow['continue_with']; session?: KratosSession } }
  | { type: 'invalid'; status: number; flow: KratosFlow }
  | { type: 'expired'; status: number; newFlowId?: string; body: KratosErrorBody }
  | { type: 'location'; status: number; redirectTo: string; body: KratosErrorBody }
  | { type: 'csrf'; status: number; body: KratosErrorBody }
  | { type: 'missing'; status: number; body: KratosErrorBody }
  | { type: 'signed_in'; status: number; body: unknown }
  | { type: 'error'; status: number; body: unknown };

export function errorId(body: unknown): string | undefined {
  return (body as KratosErrorBody | undefined)?.error?.id;
}

/** Turns a submit answer into the handful of cases a handler acts on. */
export function classifySubmit(answer: KratosAnswer<unknown>): SubmitOutcome {
  const { status, data } = answer;
  if (answer.ok) {
    // Recovery/verification answer 200 with the flow itself (contract §20.9): a sent code, a wrong code,
    // or a passed challenge. The caller reads `state` and messages.
    if (isFlow(data)) return { type: 'invalid', status, flow: data };
    return { type: 'success', status, data: (data ?? {}) as never };
  }
  const id = errorId(data);
  if (status === 400 && isFlow(data)) {
    const signedIn = data.ui.messages?.some((message) => message.id === 4000001 && /valid session was detected/i.test(message.text));
    if (signedIn) return { type: 'signed_in', status, body: data };
    return { type: 'invalid', status, flow: data };
  }
  const body = (data ?? {}) as KratosErrorBody;
  if (id === 'session_already_available') return { type: 'signed_in', status, body };
  if (status === 410) return { type: 'expired', status, newFlowId: body.use_flow_id, body };
  if (status === 422 && body.redirect_browser_to) return { type: 'location', status, redirectTo: body.redirect_browser_to, body };
  if (status === 403 && id === 'security_csrf_violation') return { type: 'csrf', status, body };
  if (status === 404) return { type: 'missing', status, body };
  return { type: 'error', status, body: data };
}

/** Kratos's message for a sign-in to a disabled (inactive) identity (contract §6.4, §17). */
const IDENTITY_DISABLED: UiText = { id: 4010011, type: 'error', text: 'This account has been disabled. Please contact support for assistance.' };

/**
 * A sign-in refused because the identity is disabled, as an error rather than a flow: Kratos v1.3 answers
 * 401 "identity is disabled" (its session could not be activated), newer releases may send the error id
 * `identity_disabled` outside a flow. Inside a flow they answer 400 with message 4010011, already a flow.
 */
function isIdentityDisabled(outcome: SubmitOutcome): boolean {
  if (outcome.type !== 'error') return false;
  const error = (outcome.body as KratosErrorBody | undefined)?.error;
  return error?.id === 'identity_disabled' || (outcome.status === 401 && error?.message === 'identity is disabled');
}

export async function submitFlow(req: Request, res: Response, kind: FlowKind, id: string, body: Record<string, unknown>): Promise<SubmitOutcome> {
  const outcome = classifySubmit(await submitAnswer(req, res, kind, id, body));
  // Whichever way Kratos says it, the sign-in form shows 4010011 on the same flow.
  if (kind === 'login' && isIdentityDisabled(outcome)) {
    const current = await getFlow(req, res, kind, id);
    if (current.ok) return { type: 'invalid', status: 400, flow: { ...current.data, ui: { ...current.data.ui, messages: [IDENTITY_DISABLED] } } };
  }
  return outcome;
}

function submitAnswer(req: Request, res: Response, kind: FlowKind, id: string, body: Record<string, unknown>) {
  return kratosCall<unknown>(req, res, (api, options) => {
    switch (kind) {
      case 'login':
        return api.updateLoginFlow(id, body as never, undefined, undefined, options);
      case 'registration':
        return api.updateRegistrationFlow(id, body as never, undefined, options);
      case 'recovery':
        return api.updateRecoveryFlow(id, body as never, undefined, undefined, options);
      case 'verification':
        return api.updateVerificationFlow(id, body as never, undefined, undefined, options);
      case 'settings':
        return api.updateSettingsFlow(id, body as never, undefined, undefined, options);
    }
  });
}

export type RestartReason = 'missing' | 'expired' | 'foreign';

export type LoadedFlow =
  | { ok: true; flow: KratosFlow; created: boolean; restarted?: RestartReason }
  | { ok: false; alreadySignedIn: true; status: number; body: unknown }
  | { ok: false; alreadySignedIn: false; status: number; body: unknown };

const RESTARTABLE: Record<number, RestartReason> = { 404: 'missing', 410: 'expired', 403: 'foreign' };

const FLOW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isFlowId(value: unknown): value is string {
  return typeof value === 'string' && FLOW_ID.test(value);
}

/**
 * The flow to show: `id` while Kratos still serves it, else a new one. Garbage ids never reach Kratos.
 * A 403 other than the CSRF check (e.g. settings of another identity) is not restarted.
 */
export async function loadFlow(req: Request, res: Response, kind: FlowKind, id: unknown, params: CreateFlowParams = {}): Promise<LoadedFlow> {
  let restarted: RestartReason | undefined;
  if (isFlowId(id)) {
    const existing = await getFlow(req, res, kind, id);
    if (existing.ok) return { ok: true, flow: existing.data, created: false };
    const reason = RESTARTABLE[existing.status];
    const foreignButNotCsrf = existing.status === 403 && errorId(existing.data) !== 'security_csrf_violation';
    if (!reason || foreignButNotCsrf) return { ok: false, alreadySignedIn: false, status: existing.status, body: existing.data };
    restarted = reason;
  } else if (id !== undefined && id !== '') {
    restarted = 'missing';
  }
  const created = await createFlow(req, res, kind, params);
  if (created.ok) return { ok: true, flow: created.data, created: true, restarted };
  if (errorId(created.data) === 'session_already_available') {
    return { ok: false, alreadySignedIn: true, status: created.status, body: created.data };
  }
  return { ok: false, alreadySignedIn: false, status: created.status, body: created.data };
}

export function getFlowError(req: Request, res: Response, id: string) {
  return kratosCall<{ id: string; error?: KratosErrorObject }>(req, res, (api, options) => api.getFlowError(id, options));
}

/** The signed-in session of this browser, or null. Cached for the request; skipped without a session cookie. */
export async function whoami(req: Request, res: Response): Promise<KratosSession | null> {
  if ('kratosSession' in res.locals) return res.locals.kratosSession as KratosSession | null;
  let session: KratosSession | null = null;
  if (hasSessionCookie(req)) {
    const answer = await kratosCall<KratosSession>(req, res, (api, options) => api.toSession(undefined, undefined, undefined, options));
    if (answer.ok && answer.data?.active !== false) session = answer.data;
  }
  res.locals.kratosSession = session;
  return session;
}

export function createLogoutFlow(req: Request, res: Response) {
  return kratosCall<{ logout_url: string; logout_token: string }>(req, res, (api, options) => api.createBrowserLogoutFlow(undefined, undefined, options));
}

export function performLogout(req: Request, res: Response, token: string) {
  return kratosCall<void>(req, res, (api, options) => api.updateLogoutFlow(token, undefined, undefined, options));
}

/** The `csrf_token` hidden node's value: every submit body must carry it (contract §1.7). */
export function flowCsrfToken(flow: KratosFlow): string | undefined {
  const node = flow.ui.nodes.find((candidate) => candidate.attributes.name === 'csrf_token');
  const value = node?.attributes.value;
  return typeof value === 'string' ? value : undefined;
}
