/**
 * Hydra's error UI (`/error?error=…&error_description=…`, its `urls.error`): Hydra sends the browser here
 * when it cannot send the error to the client (an unknown client or redirect URI, a bad logout request…).
 * The page is ours: the error code picks a translated text (`oauth2.hydraError.<code>`, else a generic
 * one); Hydra's description is shown only as a technical detail, escaped, cut to a bounded length.
 * The answer is a 400 whatever Hydra's error (a server_error included): the user gets no 5xx from us.
 */
import type { Request, Response } from 'express';
import { createElement } from 'react';
import { AppError, ERROR_CODES } from '../../core/errors.ts';
import { OAuth2ErrorPage } from '../../views/pages/OAuth2ErrorPage.tsx';
import { respondError } from '../flows/respond.ts';
import { translator } from '../request-context.ts';

/** OAuth2 and Hydra error codes with their own text (RFC 6749 §4.1.2.1, OpenID Core §3.1.2.6, ory-hydra.md §0.1). */
export const KNOWN_OAUTH2_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_scope',
  'invalid_state',
  'unauthorized_client',
  'unsupported_response_type',
  'access_denied',
  'request_forbidden',
  'request_unauthorized',
  'login_required',
  'consent_required',
  'server_error',
  'temporarily_unavailable',
] as const;

const MAX_DETAIL = 300;

function stringParam(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function showOAuth2Error(req: Request, res: Response): void {
  const t = translator(req);
  const raw = stringParam(req.query.error) ?? '';
  const error = (KNOWN_OAUTH2_ERRORS as readonly string[]).find((known) => known === raw);
  const section = error ? `oauth2.hydraError.${error}` : 'oauth2.hydraError.other';
  const message = t(`${section}`);
  const description = stringParam(req.query.error_description)?.slice(0, MAX_DETAIL);
  const shownCode = /^[A-Za-z0-9_.-]{1,64}$/.test(raw) ? raw : 'unknown';
  const meta = { error: shownCode, ...(description ? { error_description: description } : {}) };
  respondError(req, res, new AppError(400, ERROR_CODES.oauth2Error, message, meta), () =>
    createElement(OAuth2ErrorPage, { title: t('oauth2.hydraError.title'), message, code: shownCode, detail: description }),
  );
}
