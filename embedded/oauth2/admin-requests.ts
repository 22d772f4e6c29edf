// The admin API of the login and consent requests: get, accept, reject, with Hydra v2.3.0's bodies and
// errors (400 without a challenge, 404 for an unknown one, 401 once ttl.login_consent_request is over).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { publicClient, type Client } from './clients.ts';
import type { Context } from './context.ts';
import { HydraError, missingQuery, notFound, oauthError } from './errors.ts';
import { flowBy, newSecretToken, requestExpired, type Flow, type Rejection, type Verdict } from './flows.ts';
import { goEncode, readJson, sendJson } from './http.ts';

const expired = (what: string) => oauthError('request_unauthorized', `The ${what} request has expired, please try again.`);

function challengeOf(url: URL, kind: 'login' | 'consent'): string {
  const challenge = url.searchParams.get(`${kind}_challenge`) ?? url.searchParams.get('challenge');
  if (!challenge) throw missingQuery('challenge');
  return challenge;
}

function clientOf(ctx: Context, flow: Flow): Record<string, unknown> {
  const client = ctx.store.get<Client>('client', flow.clientId);
  if (!client) throw notFound();
  return publicClient(client);
}

const object = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

function rejectionOf(body: Record<string, unknown>, fallback: string): Rejection {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const description = [text(body.error_description), text(body.error_hint)].filter((part) => part !== '').join(' ');
  return {
    error: text(body.error) || fallback,
    error_description: description,
    status_code: typeof body.status_code === 'number' && body.status_code >= 400 ? body.status_code : 400,
  };
}

export async function handleLoginConsentRequests(req: IncomingMessage, res: ServerResponse, path: string, ctx: Context): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://admin');
  const match = /^\/admin\/oauth2\/auth\/requests\/(login|consent)(?:\/(accept|reject))?$/.exec(path);
  if (!match) return false;
  const kind = match[1] as 'login' | 'consent';
  const action = match[2] ?? 'get';
  if ((action === 'get' && req.method !== 'GET') || (action !== 'get' && req.method !== 'PUT')) return false;
  const challenge = challengeOf(url, kind);
  const flow = flowBy(ctx, `${kind}_challenge:${challenge}`);
  if (!flow) {
    // Real Hydra v2.3.0 answers a consent accept for a challenge it cannot decode with this odd 400.
    if (kind === 'consent' && action === 'accept') throw new HydraError('error', undefined, { status: 400, description: 'The error is unrecognizable' });
    throw notFound();
  }
  const since = kind === 'login' ? flow.requestedAt : (flow.consentRequestedAt ?? flow.requestedAt);
  if (requestExpired(ctx, since)) throw expired(kind);

  if (kind === 'login') {
    if (action === 'get') return (sendJson(res, 200, loginRequest(ctx, flow, challenge)), true);
    const body = await readJson(req);
    const verdict: Verdict = { flowId: flow.id };
    if (action === 'reject') {
      verdict.loginError = rejectionOf(body, 'login request denied');
    } else {
      const subject = typeof body.subject === 'string' ? body.subject : '';
      if (subject === '') throw oauthError('invalid_request', "Field 'subject' must not be empty.");
      if (flow.loginSkip && subject !== flow.loginSubject) {
        // Another person than the remembered one: Hydra restarts the request with a forced login.
        return (sendJson(res, 200, { redirect_to: `${ctx.publicUrl}/oauth2/auth?${goEncode({ ...flow.params, prompt: 'login' })}` }), true);
      }
      verdict.login = {
        subject,
        remember: flow.loginSkip || body.remember === true,
        rememberFor: typeof body.remember_for === 'number' ? body.remember_for : 0,
        extendSessionLifespan: body.extend_session_lifespan === true,
        acr: typeof body.acr === 'string' ? body.acr : '',
        amr: stringList(body.amr),
        context: object(body.context),
        identityProviderSessionId: typeof body.identity_provider_session_id === 'string' ? body.identity_provider_session_id : '',
        forceSubjectIdentifier: typeof body.force_subject_identifier === 'string' ? body.force_subject_identifier : '',
      };
    }
    const verifier = newSecretToken();
    ctx.store.put('verdict', verifier, verdict, { ref: flow.id });
    return (sendJson(res, 200, { redirect_to: `${ctx.publicUrl}/oauth2/auth?${goEncode({ ...flow.params, login_verifier: verifier })}` }), true);
  }

  if (action === 'get') return (sendJson(res, 200, consentRequest(ctx, flow, challenge)), true);
  const body = await consentBody(req);
  const verdict: Verdict = { flowId: flow.id };
  if (action === 'reject') {
    verdict.consentError = rejectionOf(body, 'consent request denied');
  } else {
    const session = object(body.session);
    verdict.consent = {
      grantScope: stringList(body.grant_scope),
      grantAudience: stringList(body.grant_access_token_audience),
      remember: body.remember === true,
      rememberFor: typeof body.remember_for === 'number' ? body.remember_for : 0,
      session: { access_token: object(session.access_token), id_token: object(session.id_token) },
      context: object(body.context),
      handledAt: new Date(ctx.clock.now()).toISOString(),
    };
  }
  const verifier = newSecretToken();
  ctx.store.put('verdict', verifier, verdict, { ref: flow.id });
  sendJson(res, 200, { redirect_to: `${ctx.publicUrl}/oauth2/auth?${goEncode({ ...flow.params, consent_verifier: verifier })}` });
  return true;
}

/** Real Hydra v2.3.0 answers a malformed consent accept or reject body (or a grant list that is no list) with its unknown-error 400. */
async function consentBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const unrecognizable = () => new HydraError('error', undefined, { status: 400, description: 'The error is unrecognizable' });
  let body: Record<string, unknown>;
  try {
    body = await readJson(req);
  } catch {
    throw unrecognizable();
  }
  for (const field of ['grant_scope', 'grant_access_token_audience']) if (body[field] != null && !Array.isArray(body[field])) throw unrecognizable();
  return body;
}

function loginRequest(ctx: Context, flow: Flow, challenge: string): Record<string, unknown> {
  return {
    challenge,
    requested_scope: flow.requestedScope,
    requested_access_token_audience: flow.requestedAudience,
    skip: flow.loginSkip,
    subject: flow.loginSubject,
    oidc_context: flow.oidcContext,
    client: clientOf(ctx, flow),
    request_url: flow.requestUrl,
    session_id: flow.sessionId,
  };
}

/** The consent request; also the `consent_request` of a listed consent session (then with the flow id as challenge). */
export function consentRequest(ctx: Context, flow: Flow, challenge: string): Record<string, unknown> {
  return {
    challenge,
    requested_scope: flow.requestedScope,
    requested_access_token_audience: flow.requestedAudience,
    skip: flow.consentSkip ?? false,
    subject: flow.login?.subject ?? '',
    oidc_context: flow.oidcContext,
    client: clientOf(ctx, flow),
    request_url: flow.requestUrl,
    login_challenge: flow.id,
    login_session_id: flow.sessionId,
    acr: flow.login?.acr ?? '',
    amr: flow.login?.amr ?? [],
    // null when the login accept gave none (real Hydra v2.3.0).
    context: flow.login && Object.keys(flow.login.context).length ? flow.login.context : null,
  };
}
