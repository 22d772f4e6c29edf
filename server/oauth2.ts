/**
 * The app's OAuth2 admin client: Ory Hydra's login, consent and logout requests (contract ory-hydra.md
 * §2–§4), and the one mapping of Hydra's answers to AppErrors.
 *
 *   oauth2Admin(config)     → typed calls (get / accept / reject of login, consent and logout requests),
 *                             built once per config: `@ory/client` OAuth2Api on HYDRA_ADMIN_URL, through the
 *                             same keep-alive transport as Kratos (server/flows/transport.ts) with the
 *                             HYDRA_TIMEOUT_MS total deadline. Undefined when HYDRA_ADMIN_URL is unset.
 *   oauth2Failure(error)    → the AppError of any failure of those calls:
 *                               410 `{redirect_to}` (handled)  → 410 oauth2_request_handled, meta.redirect_to
 *                               404 (unknown challenge)        → 404 oauth2_request_unknown
 *                               401 (expired challenge)        → 410 oauth2_request_expired
 *                               other 4xx                      → 400 oauth2_bad_request
 *                               5xx, unreachable, past deadline → 503 oauth2_unavailable
 *                             Each carries a locale section (`oauth2.error.<kind>`): Hydra's own text never
 *                             reaches the user.
 *   answerOAuth2Failure(req, res, error) → a handled challenge sends the browser to Hydra's redirect_to (it
 *                             restarts the OAuth2 flow); anything else is the translated page or JSON error.
 *   isChallenge(value)      → a challenge worth sending to Hydra (opaque, URL-safe, bounded).
 *   redirectOrigins(urls)   → the http(s) origins of a client's redirect URIs (for the CSP form-action).
 */
import http from 'node:http';
import https from 'node:https';
import {
  Configuration,
  OAuth2Api,
  type AcceptOAuth2ConsentRequest,
  type OAuth2ConsentRequest,
  type OAuth2LoginRequest,
  type OAuth2LogoutRequest,
  type RejectOAuth2Request,
} from '@ory/client';
import type { Request, Response } from 'express';
import { createElement } from 'react';
import { AppError, ERROR_CODES } from '../core/errors.ts';
import { OAuth2ErrorPage } from '../views/pages/OAuth2ErrorPage.tsx';
import type { Config } from './config.ts';
import { respondError, respondRedirect } from './flows/respond.ts';
import { sdkRequester } from './flows/sdk-requester.ts';
import { IDENTITY_UNAVAILABLE, kratosAdapter, type AdapterConfig } from './flows/transport.ts';
import { oryAgentOptions } from './ory.ts';
import { configOf, translator } from './request-context.ts';
import { LOG_REASONS } from './log-reasons.ts';

export type OAuth2Admin = {
  getLoginRequest(challenge: string): Promise<OAuth2LoginRequest>;
  getConsentRequest(challenge: string): Promise<OAuth2ConsentRequest>;
  acceptConsent(challenge: string, body: AcceptOAuth2ConsentRequest): Promise<string>;
  rejectConsent(challenge: string, body: RejectOAuth2Request): Promise<string>;
  getLogoutRequest(challenge: string): Promise<OAuth2LogoutRequest>;
  acceptLogout(challenge: string): Promise<string>;
  rejectLogout(challenge: string): Promise<void>;
};

function unavailable(reason: string): AppError {
  return new AppError(503, ERROR_CODES.oauth2Unavailable, 'The OAuth2 provider could not be reached in time', { reason }, 'oauth2.error.unavailable');
}

/** The Kratos transport, its "identity unavailable" turned into ours: the same deadline and fail-fast, another service. */
async function hydraAdapter(config: AdapterConfig) {
  try {
    return await kratosAdapter(config);
  } catch (error) {
    if (error instanceof AppError && error.code === IDENTITY_UNAVAILABLE) throw unavailable(String(error.meta.reason ?? 'unreachable'));
    throw error;
  }
}

function dataOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      return dataOf(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** The AppError of a failed admin call (see the header). Never carries Hydra's own text or the challenge. */
export function oauth2Failure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const response = (error as { response?: { status?: number; data?: unknown } } | null)?.response;
  const status = response?.status;
  if (typeof status !== 'number') return unavailable('no answer');
  const data = dataOf(response?.data);
  const hydraError = typeof data.error === 'string' ? data.error.slice(0, 64) : undefined;
  if (status === 410 && typeof data.redirect_to === 'string') {
    return new AppError(410, ERROR_CODES.oauth2RequestHandled, 'The request was already handled', { redirect_to: data.redirect_to }, 'oauth2.error.handled');
  }
  if (status === 404) return new AppError(404, ERROR_CODES.oauth2RequestUnknown, 'Unknown request', {}, 'oauth2.error.unknown');
  if (status === 401) return new AppError(410, ERROR_CODES.oauth2RequestExpired, 'The request has expired', {}, 'oauth2.error.expired');
  if (status >= 400 && status < 500)
    return new AppError(400, ERROR_CODES.oauth2BadRequest, 'Refused by the OAuth2 provider', { hydraError }, 'oauth2.error.badRequest');
  return unavailable(`status ${status}`);
}

async function call<T>(run: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await run()).data;
  } catch (error) {
    throw oauth2Failure(error);
  }
}

function redirectOf(answer: { redirect_to?: string }): string {
  if (typeof answer.redirect_to !== 'string' || !/^https?:\/\//.test(answer.redirect_to)) throw unavailable('no redirect_to');
  return answer.redirect_to;
}

export function createOAuth2Admin(config: Config): OAuth2Admin | undefined {
  if (!config.HYDRA_ADMIN_URL) return undefined;
  const api = new OAuth2Api(
    new Configuration({
      basePath: config.HYDRA_ADMIN_URL.replace(/\/+$/, ''),
      baseOptions: {
        adapter: hydraAdapter,
        httpAgent: new http.Agent(oryAgentOptions(config)),
        httpsAgent: new https.Agent(oryAgentOptions(config)),
        timeout: config.HYDRA_TIMEOUT_MS,
      },
    }),
    undefined,
    sdkRequester,
  );
  return {
    getLoginRequest: (loginChallenge) => call(() => api.getOAuth2LoginRequest({ loginChallenge })),
    getConsentRequest: (consentChallenge) => call(() => api.getOAuth2ConsentRequest({ consentChallenge })),
    acceptConsent: async (consentChallenge, body) =>
      redirectOf(await call(() => api.acceptOAuth2ConsentRequest({ consentChallenge, acceptOAuth2ConsentRequest: body }))),
    rejectConsent: async (consentChallenge, body) =>
      redirectOf(await call(() => api.rejectOAuth2ConsentRequest({ consentChallenge, rejectOAuth2Request: body }))),
    getLogoutRequest: (logoutChallenge) => call(() => api.getOAuth2LogoutRequest({ logoutChallenge })),
    acceptLogout: async (logoutChallenge) => redirectOf(await call(() => api.acceptOAuth2LogoutRequest({ logoutChallenge }))),
    rejectLogout: async (logoutChallenge) => {
      await call(() => api.rejectOAuth2LogoutRequest({ logoutChallenge }));
    },
  };
}

const adminByConfig = new WeakMap<Config, OAuth2Admin | undefined>();

/** How a declined consent is answered, whether Deny was pressed or the person signed out instead (decision 254). */
export const DENIED_CONSENT: RejectOAuth2Request = {
  error: 'access_denied',
  error_description: 'The resource owner denied the request',
  status_code: 403,
};

/** This configuration's admin client, built on first use and then reused (undefined: no HYDRA_ADMIN_URL). */
export function oauth2Admin(config: Config): OAuth2Admin | undefined {
  if (!adminByConfig.has(config)) adminByConfig.set(config, createOAuth2Admin(config));
  return adminByConfig.get(config);
}

// Hydra v2.3's challenges are opaque URL-safe strings (UUID-like hex, or longer encrypted blobs on newer releases).
const CHALLENGE = /^[A-Za-z0-9_.~=+/-]{1,4096}$/;

export function isChallenge(value: unknown): value is string {
  return typeof value === 'string' && CHALLENGE.test(value);
}

/** A challenge that is missing or malformed: the same translated 400 as Hydra's refusals. */
export function badChallenge(): AppError {
  return new AppError(400, ERROR_CODES.oauth2BadRequest, 'Missing or malformed challenge', {}, 'oauth2.error.badRequest');
}

/** The http(s) origins of these URLs (a client's redirect URIs), others left out. */
export function redirectOrigins(urls: readonly string[] | undefined | null): string[] {
  const origins = new Set<string>();
  for (const value of urls ?? []) {
    try {
      const url = new URL(value);
      // CSP host sources cannot name an IPv6 literal (Chromium warns and drops `http://[::1]`): left out.
      if ((url.protocol === 'https:' || url.protocol === 'http:') && !url.hostname.startsWith('[')) origins.add(url.origin);
    } catch {
      // not a URL: nothing to allow
    }
  }
  return [...origins];
}

/**
 * A handled request's redirect_to as a browser address: Hydra v2.3.0 gives the logout request's as a bare
 * path (`/oauth2/sessions/logout?…`), which is on Hydra's public URL, not ours.
 */
function onHydra(redirectTo: unknown, config: Config): string | undefined {
  if (typeof redirectTo !== 'string' || !config.HYDRA_PUBLIC_URL) return undefined;
  try {
    const url = new URL(redirectTo, config.HYDRA_PUBLIC_URL);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Answers a failed OAuth2 step: a handled challenge goes on to Hydra's redirect_to, anything else is translated. */
export function answerOAuth2Failure(req: Request, res: Response, error: unknown): void {
  const failure = oauth2Failure(error);
  const redirectTo = failure.code === ERROR_CODES.oauth2RequestHandled ? onHydra(failure.meta.redirect_to, configOf(req)) : undefined;
  if (redirectTo) return respondRedirect(req, res, redirectTo);
  const t = translator(req);
  const section = failure.messageKey ?? 'oauth2.error.badRequest';
  const message = t(`${section}.text`);
  if (failure.status === 503) {
    req.log?.warn({ code: failure.code, reason: LOG_REASONS.ory, cause: failure.meta.reason }, 'OAuth2 provider unavailable');
    res.set('Retry-After', '5');
  } else req.log?.info({ code: failure.code, status: failure.status }, 'OAuth2 request refused');
  respondError(req, res, new AppError(failure.status, failure.code, message), () =>
    createElement(OAuth2ErrorPage, { title: t(`${section}.title`), message, code: failure.code }),
  );
}
