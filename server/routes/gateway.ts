/**
 * /authentication/gateway (login required): hands the signed-in session to the desktop or mobile app
 * through OAuth2 authorization code + PKCE for a public client (decision 140). We never mint codes: the
 * gateway checks the app's parameters and sends the browser to the OAuth2 provider's /oauth2/auth, which
 * comes back through /sign-in?login_challenge (accepted at once: the session exists) and the consent
 * (skipped: the gateway clients are trusted) to the app's redirect URI.
 *
 *   GET /authentication/gateway?request_login=1&redirect_uri=http://127.0.0.1:<port>/<path>&code_challenge=&code_challenge_method=S256&state=
 *       desktop: the code goes to the app's loopback listener (RFC 8252), which then opens /authentication/gateway/done;
 *       any port, but the path must be one registered for the desktop client (the provider refuses any
 *       other on its error page; `npm start` registers /callback: scripts/oauth2-clients.ts)
 *   GET /authentication/gateway?platform=ios|android&login_type=email|google|…&code_challenge=&code_challenge_method=S256&state=
 *       mobile: the code comes back to /authentication/gateway/callback, whose page posts it to the web view bridge
 *   GET /authentication/gateway/callback?code=&state= | ?error=&error_description=&state=
 *   GET /authentication/gateway/done
 *
 * A guest goes to the provider at once and signs in on its login UI, our /sign-in?login_challenge (a mobile
 * `login_type` naming a provider rides along as `provider_hint`, and that page starts the provider's sign-in
 * at once: server/flows/oauth2-login.ts).
 * Without the app's client id (GATEWAY_DESKTOP_CLIENT_ID / GATEWAY_MOBILE_CLIENT_ID) or HYDRA_PUBLIC_URL: 404.
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { AppError, ERROR_CODES } from '../../core/errors.ts';
import { GATEWAY_LIMITS } from '../../core/limits.ts';
import { SOCIAL_PROVIDERS } from '../../core/kratos/social.ts';
import { ROUTES } from '../../core/routes.ts';
import { FlowErrorPage } from '../../views/pages/FlowErrorPage.tsx';
import { GatewayCallbackPage, GatewayDonePage, type GatewayResult } from '../../views/pages/GatewayPages.tsx';
import type { Config } from '../config.ts';
import { urlOnOrigin } from '../flows/account-host.ts';
import { PROVIDER_HINT } from '../flows/oauth2-login.ts';
import { respondError, respondRedirect, responseMode } from '../flows/respond.ts';
import { requireLogin, whoami } from '../flows/session.ts';
import type { AppLocals } from '../locals.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { renderPage } from '../render.tsx';
import { configOf, translator } from '../request-context.ts';

/** What the apps are given: an ID token naming the identity, and a refresh token to stay signed in. */
const GATEWAY_SCOPE = 'openid offline_access';
const LOGIN_TYPES = ['email', ...SOCIAL_PROVIDERS] as const;

const state = z
  .string()
  .min(GATEWAY_LIMITS.stateMin)
  .max(GATEWAY_LIMITS.stateMax)
  .regex(/^[\x21-\x7e]+$/)
  .describe('Opaque value the app checks when the code comes back (8+ printable characters)');
const pkce = {
  // S256 only: the challenge is base64url(SHA-256(verifier)), always 43 characters.
  code_challenge: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .describe('PKCE S256 challenge'),
  code_challenge_method: z.literal('S256'),
  state,
};

/** An http loopback address by IP literal (RFC 8252 §7.3: not `localhost`), any port, no user info or fragment. */
const loopbackRedirect = z
  .string()
  .max(GATEWAY_LIMITS.redirectUriMax)
  .refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    const host = url.hostname;
    return url.protocol === 'http:' && (host === '127.0.0.1' || host === '[::1]') && !url.username && !url.password && !url.hash;
  })
  .describe(
    'The desktop app’s loopback listener, http://127.0.0.1:<port>/<path> or http://[::1]:<port>/<path>: any port, a path registered for the desktop client (npm start: /callback)',
  );

const desktopQuery = z.object({ request_login: z.string().max(8), redirect_uri: loopbackRedirect, ...pkce });
const mobileQuery = z.object({
  platform: z.enum(['ios', 'android']),
  login_type: z.enum(LOGIN_TYPES).default('email'),
  ...pkce,
});
const callbackQuery = z.object({
  code: z.string().max(GATEWAY_LIMITS.codeMax).optional(),
  state: z.string().max(GATEWAY_LIMITS.stateMax).optional(),
  error: z.string().max(GATEWAY_LIMITS.errorMax).optional(),
  error_description: z.string().max(GATEWAY_LIMITS.errorMax).optional(),
});

documentEndpoint({
  method: 'get',
  path: ROUTES.gateway,
  summary: 'Hand the signed-in session to the desktop or mobile app (OAuth2 code + PKCE)',
  description:
    'Login required. Desktop: `request_login`, `redirect_uri` (loopback). Mobile: `platform`, `login_type`. Both: `code_challenge`, `code_challenge_method=S256`, `state`.',
  tags: ['oauth2'],
  query: desktopQuery.partial().extend(mobileQuery.partial().shape),
  responses: {
    200: { description: 'JSON: where to send the browser', schema: z.object({ redirect_to: z.url() }) },
    303: { description: 'To the OAuth2 provider’s /oauth2/auth; a guest to /sign-in?return_to=…' },
    400: errorResponse('gateway_invalid_request'),
    404: errorResponse('gateway_not_configured'),
  },
});

type Gateway = { clientId: string; redirectUri: string; query: z.infer<typeof desktopQuery> | z.infer<typeof mobileQuery> };

function refuse(req: Request, res: Response, error: AppError): void {
  respondError(req, res, error, () => createElement(FlowErrorPage, { message: error.message, code: error.code, retryHref: ROUTES.home }));
}

/** The app's request read and checked, or the translated refusal (404 not configured, 400 malformed). */
function gatewayOf(req: Request, config: Config): Gateway | AppError {
  const t = translator(req);
  const desktop = req.query.request_login !== undefined;
  const mobile = req.query.platform !== undefined;
  const notConfigured = new AppError(404, ERROR_CODES.gatewayNotConfigured, t('gateway.notConfigured'));
  if (!desktop && !mobile) return new AppError(400, ERROR_CODES.gatewayInvalidRequest, t('gateway.invalidRequest'));
  const clientId = desktop ? config.GATEWAY_DESKTOP_CLIENT_ID : config.GATEWAY_MOBILE_CLIENT_ID;
  if (!clientId || !config.HYDRA_PUBLIC_URL) return notConfigured;
  const parsed = desktop ? desktopQuery.safeParse(req.query) : mobileQuery.safeParse(req.query);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')))];
    return new AppError(400, ERROR_CODES.gatewayInvalidRequest, t('gateway.invalidRequest'), { fields });
  }
  const redirectUri = 'redirect_uri' in parsed.data ? parsed.data.redirect_uri : urlOnOrigin(config.PUBLIC_URL, ROUTES.gatewayCallback).href;
  return { clientId, redirectUri, query: parsed.data };
}

/** The authorization request; `provider`: the sign-in to start at once for a guest (oauth2-login.ts). */
function authorizeUrl(config: Config, gateway: Gateway, provider?: string): string {
  const url = new URL('/oauth2/auth', config.HYDRA_PUBLIC_URL);
  url.search = new URLSearchParams({
    client_id: gateway.clientId,
    response_type: 'code',
    scope: GATEWAY_SCOPE,
    redirect_uri: gateway.redirectUri,
    state: gateway.query.state,
    code_challenge: gateway.query.code_challenge,
    code_challenge_method: 'S256',
    ...(provider ? { [PROVIDER_HINT]: provider } : {}),
  }).toString();
  return url.href;
}

async function toProvider(req: Request, res: Response): Promise<void> {
  const config = configOf(req);
  const gateway = gatewayOf(req, config);
  if (gateway instanceof AppError) return refuse(req, res, gateway);
  const loginType = 'login_type' in gateway.query ? gateway.query.login_type : 'email';
  if (responseMode(req) !== 'json' && !(await whoami(req, res))) {
    // A guest signs in inside the authorization: the provider's login UI is our sign-in page, and one
    // sign-in there is the whole journey (signing in first would make Kratos ask again, since the provider
    // remembers no login yet; decision 140). A mobile guest who chose a provider in the app is sent by
    // that page straight to the provider's sign-in (the hint in the authorization request).
    return respondRedirect(req, res, authorizeUrl(config, gateway, loginType === 'email' ? undefined : loginType));
  }
  // Signed in (JSON guests get requireLogin's 401): on to the provider.
  let signedIn = false;
  let failure: unknown;
  await requireLogin(req, res, (error?: unknown) => {
    if (error) failure = error;
    else signedIn = true;
  });
  if (failure) throw failure;
  if (signedIn) respondRedirect(req, res, authorizeUrl(config, gateway));
}

function callback(req: Request, res: Response): void {
  const parsed = callbackQuery.safeParse(req.query);
  const query = parsed.success ? parsed.data : {};
  const result: GatewayResult =
    query.code && query.state && !query.error
      ? { status: 'success', code: query.code, state: query.state }
      : { status: 'error', error: query.error ?? 'invalid_request', state: query.state };
  const status = result.status === 'success' ? 200 : 400;
  if (responseMode(req) === 'json')
    return void res
      .status(status)
      .set('Cache-Control', 'no-store')
      .json({ type: 'authentication', ...result });
  const bridgeScript = (req.app.locals as AppLocals).assets.appBridge;
  renderPage(req, res, createElement(GatewayCallbackPage, { result, bridgeScript }), {
    title: translator(req)(result.status === 'success' ? 'gateway.callbackTitle' : 'gateway.callbackErrorTitle'),
    status,
  });
}

export function gatewayRoutes(): Router {
  const router = Router();
  router.get(ROUTES.gateway, (req, res, next) => toProvider(req, res).catch(next));
  router.get(ROUTES.gatewayCallback, callback);
  router.get(ROUTES.gatewayDone, (req, res) => renderPage(req, res, createElement(GatewayDonePage), { title: translator(req)('gateway.doneTitle') }));
  return router;
}
