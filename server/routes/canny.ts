/**
 * /authentication/canny (login required): signs the user in to the Canny feedback board. The backend
 * builds the SSO redirect (its token is signed with the company's private key, which never leaves the
 * backend); we only check that it is an https address and send the browser there.
 *
 *   GET /authentication/canny[?redirect=<board url>] → 303 to Canny (JSON: `{ redirect_to }`)
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { FlowErrorPage } from '../../views/pages/FlowErrorPage.tsx';
import { AppError } from '../../core/errors.ts';
import { ROUTES } from '../../core/routes.ts';
import { backendClientFor, callerOf, isSignedOut } from '../backend-client.ts';
import { translator } from '../request-context.ts';
import { respondError, respondRedirect } from '../flows/respond.ts';
import { requireLogin } from '../flows/session.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { signInAgain } from './profile/context.ts';

const MAX_REDIRECT_LENGTH = 2048;

const cannyQuery = z.object({
  redirect: z.string().max(MAX_REDIRECT_LENGTH).optional().describe('The board page to land on (https, on the Canny board’s host)'),
});

documentEndpoint({
  method: 'get',
  path: ROUTES.canny,
  summary: 'Sign in to the feedback board (Canny SSO)',
  description: 'Login required. Asks the user service for a Canny SSO address and sends the browser there (303).',
  tags: ['feedback'],
  query: cannyQuery,
  responses: {
    200: { description: 'JSON: where to send the browser', schema: z.object({ redirect_to: z.url() }) },
    303: { description: 'HTML: to the feedback board' },
    400: errorResponse('invalid_redirect: the redirect is not an address of the board'),
    401: errorResponse('Not signed in'),
    503: errorResponse('The feedback board is not configured or the user service is unreachable'),
  },
});

function isHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

function failure(req: Request, error: AppError): AppError {
  const t = translator(req);
  if (error.status === 400) return new AppError(400, error.code, t('canny.invalidRedirect'));
  req.log?.warn({ code: error.code, status: error.status }, 'canny redirect not available');
  return new AppError(503, 'canny_unavailable', t('canny.unavailable'));
}

function refuse(req: Request, res: Response, error: AppError): void {
  respondError(req, res, error, () => createElement(FlowErrorPage, { message: error.message, code: error.code, retryHref: ROUTES.profile }));
}

async function toCanny(req: Request, res: Response): Promise<void> {
  const t = translator(req);
  const raw = req.query.redirect;
  if (raw !== undefined && (typeof raw !== 'string' || raw.length > MAX_REDIRECT_LENGTH)) {
    return refuse(req, res, new AppError(400, 'invalid_redirect', t('canny.invalidRedirect')));
  }
  let redirectUrl: unknown;
  try {
    ({ redirectUrl } = await backendClientFor(req).getCannyRedirectUrl(callerOf(req, res), raw || undefined));
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (isSignedOut(error)) return signInAgain(req, res);
    if (error.code === 'account_pending_deletion') return respondRedirect(req, res, ROUTES.profile);
    return refuse(req, res, failure(req, error));
  }
  if (!isHttpsUrl(redirectUrl)) return refuse(req, res, failure(req, new AppError(502, 'bad_gateway', 'not an https address')));
  respondRedirect(req, res, redirectUrl);
}

export function cannyRoutes(): Router {
  const router = Router();
  router.get(ROUTES.canny, requireLogin, toCanny);
  return router;
}
