/**
 * /error?error=&error_description= — Hydra's error UI (its `urls.error`): a translated page for the OAuth2
 * error (server/routes/oauth2-error.ts); Hydra's description only as an escaped technical detail.
 *
 * /error?id= — Kratos's error UI (its `selfservice.flows.error.ui_url`): fetches the stored flow error
 * and shows it translated, with a way back into the flow. The HTTP status is the error's own code, except
 * that a failed social sign-in (recognised in core/kratos/social.ts) is always a 4xx with our own text:
 * Kratos stores some (a code its token endpoint refused) as 500s.
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { translator } from '../request-context.ts';
import { getFlowError } from '../flows/kratos.ts';
import { mapIdentityProviderError, translateErrorId } from '../../core/kratos/messages.ts';
import { respondError, respondRedirect, responseMode } from '../flows/respond.ts';
import { linkFailureFromError } from './profile/linking.ts';
import { createElement } from 'react';
import { FlowErrorPage } from '../../views/pages/FlowErrorPage.tsx';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { ROUTES } from '../../core/routes.ts';
import { showOAuth2Error } from './oauth2-error.ts';

const errorQuery = z.object({
  id: z.string().max(128).optional().describe('Kratos flow error id'),
  error: z.string().max(64).optional().describe('An OAuth2 error code from Hydra (when there is no id)'),
  error_description: z.string().max(1024).optional().describe("Hydra's description, shown only as a technical detail"),
});

documentEndpoint({
  method: 'get',
  path: ROUTES.flowError,
  summary: 'A Kratos flow error, or an OAuth2 error from Hydra, translated',
  tags: ['errors'],
  query: errorQuery,
  responses: {
    400: errorResponse('The stored error (its own status: 400, 403, 404, 410, …)'),
    404: errorResponse('Unknown error id'),
  },
});

const ERROR_ID = /^[A-Za-z0-9:_-]{1,128}$/;

/**
 * Texts for this page where the form's wording would be wrong: an expired flow reaches the error UI from a
 * provider's callback, and no fresh form was loaded here (the form's text says one was).
 */
const PAGE_KEYS: Readonly<Record<string, string>> = { self_service_flow_expired: 'flowError.self_service_flow_expired' };

function pageText(t: (key: string) => string, id: string | undefined): string | undefined {
  const key = id ? PAGE_KEYS[id] : undefined;
  const text = key ? t(key) : undefined;
  return text && text !== key ? text : undefined;
}

/** Where "try again" leads, by the kind of flow the error came from (details name it when known). */
function retryHref(errorId: string | undefined): string {
  // (Social sign-in failures have no flow to go back to either: signing in again starts a new one.)
  if (errorId === 'session_already_available') return '/';
  return ROUTES.signIn;
}

async function show(req: Request, res: Response): Promise<void> {
  if (req.query.id === undefined && req.query.error !== undefined) return showOAuth2Error(req, res);
  const t = translator(req);
  const id = typeof req.query.id === 'string' && ERROR_ID.test(req.query.id) ? req.query.id : undefined;
  const answer = id ? await getFlowError(req, res, id) : undefined;
  if (!answer || !answer.ok || !answer.data?.error) {
    const message = t('flowError.unknown');
    return respondError(req, res, new AppError(404, 'flow_error_not_found', message), () =>
      createElement(FlowErrorPage, { message, code: 'flow_error_not_found' }),
    );
  }
  const error = answer.data.error;
  // A profile link whose provider round trip failed before Kratos found its flow: the settings page says why.
  const linkFailed = responseMode(req) === 'json' ? undefined : linkFailureFromError(req, error);
  if (linkFailed) return respondRedirect(req, res, linkFailed);
  const status = typeof error.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : 500;
  const mapped = mapIdentityProviderError(status, { error }, t);
  const message = pageText(t, error.id) ?? translateErrorId(t, error.id) ?? mapped.message;
  respondError(req, res, new AppError(mapped.status, mapped.code, message, { ...mapped.meta, errorId: error.id ?? null }), () =>
    createElement(FlowErrorPage, { message, code: String(error.id ?? status), retryHref: retryHref(error.id) }),
  );
}

export function flowErrorRoutes(): Router {
  const router = Router();
  router.get(ROUTES.flowError, (req, res) => show(req, res));
  return router;
}
