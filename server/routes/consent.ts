/**
 * /consent: Hydra's consent UI (its `urls.consent`; contract ory-hydra.md §3). Decision 130.
 *
 *   GET  /consent?consent_challenge=   the app's name and logo, the requested scopes in plain words,
 *                                      "remember my choice", Allow / Deny (JSON: the same facts and our
 *                                      CSRF token). Given without asking (303 to Hydra's redirect_to) when
 *                                      Hydra says `skip`, the client has `skip_consent`, or its id is in
 *                                      OAUTH2_TRUSTED_CLIENT_IDS. An account waiting for deletion goes
 *                                      to the restore offer first, and comes back here once restored.
 *   POST /consent                      (our CSRF token) consent_challenge, decision=allow|deny, remember:
 *                                      allow → accepted with the requested scopes and audience, the ID
 *                                      token's claims from the identity; deny → rejected with
 *                                      access_denied. Either way 303 to Hydra, which answers the client.
 *
 * The consent belongs to its subject: only a browser signed in to Kratos as that identity sees or answers
 * it; any other (signed out, another account) is sent to sign in again (the authorize URL with
 * prompt=login). Hydra's failures are translated (server/oauth2.ts); a handled challenge goes on to Hydra.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import type { OAuth2ConsentRequest } from '@ory/client';
import type { KratosSession } from '../../core/kratos/types.ts';
import { ROUTES } from '../../core/routes.ts';
import { ConsentPage } from '../../views/pages/ConsentPage.tsx';
import { awaitsDeletion, throughRestoreOffer } from '../flows/deletion-pending.ts';
import { whoami } from '../flows/kratos.ts';
import { respondRedirect, responseMode } from '../flows/respond.ts';
import { redirectResultSchema } from '../flows/schemas.ts';
import { answerOAuth2Failure, badChallenge, DENIED_CONSENT, isChallenge, oauth2Admin, redirectOrigins, type OAuth2Admin } from '../oauth2.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { oryClients } from '../ory.ts';
import { renderPage } from '../render.tsx';
import { configOf, translator } from '../request-context.ts';
import { provideCsrfToken, requireCsrf } from '../security/csrf.ts';
import { allowOnThisPage } from '../security/headers.ts';
import { consentClaims, logoOrigin, scopeLabels } from './oauth2-consent-facts.ts';

const consentQuery = z.object({ consent_challenge: z.string().max(4096).describe("Hydra's consent challenge") });
const consentBody = z.object({
  _csrf: z.string().optional().describe('Our CSRF token (or the x-csrf-token header)'),
  consent_challenge: z.string().max(4096),
  decision: z.enum(['allow', 'deny']),
  remember: z.enum(['true', 'on', 'false']).optional().describe('Remember this choice until it is revoked'),
});

documentEndpoint({
  method: 'get',
  path: ROUTES.consent,
  summary: 'OAuth2 consent screen (Hydra consent challenge)',
  tags: ['oauth2'],
  query: consentQuery,
  responses: {
    200: {
      description: 'What the app asks for, and our CSRF token for the POST',
      schema: z.object({
        client: z.object({ client_id: z.string(), client_name: z.string(), logo_uri: z.string().optional() }),
        scopes: z.array(z.object({ scope: z.string(), label: z.string() })),
        csrf_token: z.string(),
        action: z.string(),
      }),
    },
    303: { description: 'Consent given without asking (skip, skip_consent, trusted client), or sign in again: on to Hydra' },
    400: errorResponse('Malformed challenge, or refused by the OAuth2 provider (code oauth2_bad_request)'),
    404: errorResponse('Unknown challenge (code oauth2_request_unknown)'),
    410: errorResponse('Expired challenge (code oauth2_request_expired)'),
    503: errorResponse('OAuth2 provider unreachable (code oauth2_unavailable)'),
  },
});

documentEndpoint({
  method: 'post',
  path: ROUTES.consent,
  summary: 'Allow or deny an OAuth2 consent',
  tags: ['oauth2'],
  body: consentBody,
  responses: {
    200: { description: "Hydra's redirect_to (HTML posts get 303): the client gets a code, or error=access_denied", schema: redirectResultSchema },
    403: errorResponse('Missing or wrong CSRF token (code csrf_invalid)'),
  },
});

/** The request to act on, or undefined when the answer (an error, sign in again) has been given. */
async function consentRequestFor(req: Request, res: Response, admin: OAuth2Admin, challenge: unknown): Promise<OAuth2ConsentRequest | undefined> {
  if (!isChallenge(challenge)) return void answerOAuth2Failure(req, res, badChallenge());
  let request: OAuth2ConsentRequest;
  try {
    request = await admin.getConsentRequest(challenge);
  } catch (error) {
    return void answerOAuth2Failure(req, res, error);
  }
  const session = await whoami(req, res);
  if (!session || session.identity?.id !== request.subject) {
    // Not the person the consent is for: sign in again, through a new authorization request.
    return void respondRedirect(req, res, signInAgain(request.request_url));
  }
  return request;
}

function signInAgain(requestUrl: string | undefined): string {
  try {
    const url = new URL(requestUrl ?? '');
    url.searchParams.set('prompt', 'login');
    return url.href;
  } catch {
    return ROUTES.signIn;
  }
}

function isTrusted(req: Request, request: OAuth2ConsentRequest): boolean {
  const clientId = request.client?.client_id;
  return request.skip === true || request.client?.skip_consent === true || (!!clientId && configOf(req).OAUTH2_TRUSTED_CLIENT_IDS.includes(clientId));
}

async function accept(req: Request, res: Response, admin: OAuth2Admin, challenge: string, request: OAuth2ConsentRequest, remember: boolean | undefined) {
  const scopes = request.requested_scope ?? [];
  const idToken = await consentClaims(oryClients(configOf(req)).identityAdmin, request.subject ?? '', scopes);
  const redirectTo = await admin.acceptConsent(challenge, {
    grant_scope: scopes,
    grant_access_token_audience: request.requested_access_token_audience ?? [],
    // Remembered until revoked (0); a skipped consent keeps the remembered one it was skipped for.
    ...(remember === undefined ? {} : { remember, remember_for: 0 }),
    session: { id_token: idToken },
  });
  respondRedirect(req, res, redirectTo);
}

const needsOAuth2: RequestHandler = (req, _res, next) => (oauth2Admin(configOf(req)) ? next() : next('router'));

async function show(req: Request, res: Response, next: (error?: unknown) => void): Promise<void> {
  const admin = oauth2Admin(configOf(req))!;
  const challenge = req.query.consent_challenge;
  const request = await consentRequestFor(req, res, admin, challenge);
  if (!request) return;
  // An account waiting for deletion is offered its restore before any app gets it (deletion-pending.ts).
  const session = res.locals.kratosSession as KratosSession;
  if (awaitsDeletion(session)) return respondRedirect(req, res, throughRestoreOffer(req, session, req.originalUrl));
  try {
    if (isTrusted(req, request)) return await accept(req, res, admin, challenge as string, request, request.skip ? undefined : false);
  } catch (error) {
    return answerOAuth2Failure(req, res, error);
  }
  provideCsrfToken(req, res, (error?: unknown) => (error ? next(error) : render(req, res, challenge as string, request)));
}

function render(req: Request, res: Response, challenge: string, request: OAuth2ConsentRequest): void {
  const t = translator(req);
  const client = request.client ?? {};
  const clientName = client.client_name || client.client_id || t('oauth2.consent.unnamedClient');
  const logo = logoOrigin(client.logo_uri, configOf(req));
  const scopes = scopeLabels(t, request.requested_scope ?? []);
  if (responseMode(req) === 'json') {
    return void res.set('Cache-Control', 'no-store').json({
      client: { client_id: client.client_id ?? '', client_name: clientName, ...(logo ? { logo_uri: client.logo_uri } : {}) },
      scopes,
      csrf_token: String(res.locals.csrfToken ?? ''),
      action: ROUTES.consent,
    });
  }
  // JavaScript off, Allow ends at the client's redirect URI through Hydra: form-action must name it.
  allowOnThisPage(res, { formAction: redirectOrigins(client.redirect_uris), imgSrc: logo ? [logo] : [] });
  const account = typeof res.locals.kratosSession?.identity?.traits?.email === 'string' ? res.locals.kratosSession.identity.traits.email : undefined;
  renderPage(
    req,
    res,
    createElement(ConsentPage, { action: ROUTES.consent, challenge, clientName, logoUri: logo ? client.logo_uri : undefined, account, scopes }),
    { title: t('oauth2.consent.title', { client: clientName }) },
  );
}

async function submit(req: Request, res: Response): Promise<void> {
  const admin = oauth2Admin(configOf(req))!;
  const parsed = consentBody.safeParse(req.body);
  if (!parsed.success) return answerOAuth2Failure(req, res, badChallenge());
  const { consent_challenge: challenge, decision } = parsed.data;
  const request = await consentRequestFor(req, res, admin, challenge);
  if (!request) return;
  try {
    if (decision === 'allow') return await accept(req, res, admin, challenge, request, parsed.data.remember === 'true' || parsed.data.remember === 'on');
    const redirectTo = await admin.rejectConsent(challenge, DENIED_CONSENT);
    respondRedirect(req, res, redirectTo);
  } catch (error) {
    answerOAuth2Failure(req, res, error);
  }
}

export function consentRoutes(): Router {
  const router = Router();
  router.get(ROUTES.consent, needsOAuth2, (req, res, next) => show(req, res, next).catch(next));
  router.post(ROUTES.consent, needsOAuth2, requireCsrf, (req, res, next) => submit(req, res).catch(next));
  return router;
}
