/**
 * Social sign-in hand-off (spec §2, §4; decision 110):
 *
 *   socialRedirect(url, provider, email?)               → the URL to send the browser to: for Google, with
 *                                                        `login_hint` (Kratos no longer forwards it, contract
 *                                                        §1.5), so Google preselects the account
 *   answerProviderRedirect(req, res, outcome, provider, email?, meta?) → browsers go there (303, or 200 +
 *                                                        X-Redirect-To for the form island: a full navigation);
 *                                                        JSON callers get 422 browser_location_change_required
 *                                                        (`meta` added, e.g. the account-link state)
 *   kratosReturnTo(config, returnTo)                    → the return_to Kratos is given: our sign-in page with
 *                                                        ours, so the callback Kratos answers itself lands where
 *                                                        our allow-list says (a signed-in browser on /sign-in
 *                                                        goes on to return_to)
 *   returnToOfFlow(flow, config)                        → ours again, read back from a flow Kratos redirected to
 *                                                        us without our query string (a failed callback)
 *   socialSignInShown(query) / withoutSocialButtons(flow)  `social_sign_in_enabled=false` hides the buttons
 *   startSocialSignIn(screenPath, ...)                  → GET ?request_social_sign_in=true&provider=… starts the
 *                                                        provider sign-in at once (see the decision record)
 */
import type { Request, RequestHandler, Response } from 'express';
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { isProviderButton, knownProvider, SOCIAL_FAILURES, socialFailureOf, type SocialFailure } from '../../core/kratos/social.ts';
import type { FlowKind, KratosFlow, KratosErrorBody } from '../../core/kratos/types.ts';
import { errorBody } from '../../core/errors.ts';
import type { Config } from '../config.ts';
import { configOf, translator } from '../request-context.ts';
import { safeReturnTo } from '../security/return-to.ts';
import { createFlow, flowCsrfToken, submitFlow, type SubmitOutcome } from './kratos.ts';
import { screenQuery, withParams } from './query.ts';
import { respondRedirect, responseMode } from './respond.ts';

const GOOGLE_HOSTS = new Set(['accounts.google.com']);

export function socialRedirect(url: string, provider: string | undefined, email: string | undefined): string {
  if (!email) return url;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return url;
  }
  const isGoogle = provider === 'google' || GOOGLE_HOSTS.has(target.hostname);
  if (!isGoogle || target.searchParams.has('login_hint')) return url;
  target.searchParams.set('login_hint', email);
  return target.href;
}

export function answerProviderRedirect(
  req: Request,
  res: Response,
  outcome: Extract<SubmitOutcome, { type: 'location' }>,
  provider: string | undefined,
  email: string | undefined,
  meta: Record<string, unknown> = {},
): void {
  const to = socialRedirect(outcome.redirectTo, provider, email);
  if (responseMode(req) !== 'json') return respondRedirect(req, res, to);
  const error = mapIdentityProviderError(422, { ...outcome.body, redirect_browser_to: to }, translator(req));
  const body = errorBody(error);
  res
    .status(422)
    .set('Cache-Control', 'no-store')
    .json({ ...body, meta: { ...body.meta, ...meta } });
}

/** Where Kratos sends the browser after a callback it completes: `<our path>?return_to=<ours>`. */
export function kratosReturnTo(config: Config, path: string, returnTo: string | undefined): string | undefined {
  if (!returnTo) return undefined; // Kratos's default (our home page) is where we would go anyway
  return new URL(withParams(path, new URLSearchParams({ return_to: returnTo })), config.PUBLIC_URL).href;
}

export function returnToOfFlow(flow: Pick<KratosFlow, 'return_to'>, config: Config): string | undefined {
  if (!flow.return_to) return undefined;
  try {
    const bounce = new URL(flow.return_to);
    if (bounce.origin !== new URL(config.PUBLIC_URL).origin) return undefined;
    return safeReturnTo(bounce.searchParams.get('return_to') ?? undefined, config);
  } catch {
    return undefined;
  }
}

/** Spec §2: `social_sign_in_enabled=false` (or 0) hides the provider buttons. */
export function socialSignInShown(query: Request['query']): boolean {
  const value = query.social_sign_in_enabled;
  return value !== 'false' && value !== '0';
}

export function withoutSocialButtons(flow: KratosFlow): KratosFlow {
  return { ...flow, ui: { ...flow.ui, nodes: flow.ui.nodes.filter((node) => !isProviderButton(node)) } };
}

/** `?social_error=` set by the start handler below: a failure to show on the page, from our list only. */
export function socialErrorOf(query: Request['query']): SocialFailure | undefined {
  const value = query.social_error;
  return (SOCIAL_FAILURES as readonly string[]).includes(String(value)) ? (value as SocialFailure) : undefined;
}

const PROVIDER_ID = /^[a-z0-9_-]{1,64}$/;

/**
 * A navigation the user made: a top-level document request that is user-activated or from our own site
 * (Fetch Metadata). An image, a frame, a script's fetch or a redirect chain started by another site is
 * not one, nor is a browser that sends no Fetch Metadata: those get the page with one button instead.
 */
export function isUserNavigation(req: Request): boolean {
  const mode = req.get('sec-fetch-mode');
  const dest = req.get('sec-fetch-dest');
  const site = req.get('sec-fetch-site');
  if (mode !== 'navigate' || dest !== 'document') return false;
  return req.get('sec-fetch-user') === '?1' || site === 'same-origin' || site === 'none';
}

export type SocialStart = {
  kind: Extract<FlowKind, 'login' | 'registration'>;
  /** The screen's own path: where a failure or a confirmation is shown. */
  path: string;
  /** The Kratos body of a provider submit on this screen (sign-up adds `traits.loginService`). */
  body(provider: string, csrfToken: string): Record<string, unknown>;
};

/**
 * GET <screen>?request_social_sign_in=true&provider=google: create the flow and submit the provider in
 * one step, then 303 to the provider (login_hint added for Google). Anything else passes to the screen.
 * Not a user navigation → the screen with that provider's button only (`request_social_sign_in` dropped,
 * the provider kept as `social_provider`); a refusal → the screen with `social_error`.
 */
export function startSocialSignIn(start: SocialStart): RequestHandler {
  return async (req, res, next) => {
    const asked = req.query.request_social_sign_in;
    const provider = req.query.provider;
    if ((asked !== 'true' && asked !== '1') || typeof provider !== 'string' || !PROVIDER_ID.test(provider)) return next();
    try {
      const config = configOf(req);
      const query = screenQuery(req, config);
      if (!isUserNavigation(req)) return respondRedirect(req, res, withParams(start.path, query.kept, { social_provider: provider }));
      const created = await createFlow(req, res, start.kind, {
        returnTo: kratosReturnTo(config, start.path, query.returnTo),
        loginChallenge: query.loginChallenge, // Kratos accepts Hydra's challenge after the provider's callback
      });
      if (!created.ok) return next(); // signed in, or Kratos refused: the screen's own GET says what to do
      const csrf = flowCsrfToken(created.data) ?? '';
      const outcome = await submitFlow(req, res, start.kind, created.data.id, start.body(provider, csrf));
      if (outcome.type === 'location') return answerProviderRedirect(req, res, outcome, knownProvider(provider) ?? provider, query.prefillEmail);
      if (outcome.type === 'signed_in') return respondRedirect(req, res, query.returnTo ?? '/');
      const reason = 'body' in outcome ? (outcome.body as KratosErrorBody | undefined)?.error?.reason : undefined;
      const failure = socialFailureOf(reason) ?? 'providerError';
      respondRedirect(req, res, withParams(start.path, query.kept, { flow: created.data.id, social_error: failure }));
    } catch (error) {
      next(error);
    }
  };
}
