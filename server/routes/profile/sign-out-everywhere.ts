/**
 * POST /profile-settings/sign-out-everywhere (login required, our CSRF token): the account is signed out
 * on every device through the backend's `auth/force-log-out` (spec §7), which revokes every identity
 * session. The user's open pages elsewhere get `force-reload` (decision 160; sent here too, for a backend
 * that does not tell the app), and this browser is cleaned up as a sign-out is: our session and the
 * authentication cookies go, and it lands on the sign-in page. JSON: `{ redirectTo }`.
 */
import { Router, type Request, type Response } from 'express';
import { AFTER_LOGOUT_PATH, ROUTES } from '../../../core/routes.ts';
import { backendClientFor, callerOf, isSignedOut } from '../../backend-client.ts';
import { clearAuthCookies } from '../../flows/app-cookies.ts';
import { respondError, respondRedirect } from '../../flows/respond.ts';
import { requireLoginFrom } from '../../flows/session.ts';
import { documentEndpoint, errorResponse } from '../../openapi/registry.ts';
import { configOf } from '../../request-context.ts';
import { requireCsrf } from '../../security/csrf.ts';
import { liveSessionsOf } from '../../socket/emit.ts';
import { CLEAR_SITE_DATA } from '../logout.ts';
import { backendFailure, sessionOf, signInAgain } from './context.ts';
import { ourCsrfBody, redirectResult } from './schemas.ts';

documentEndpoint({
  method: 'post',
  path: ROUTES.signOutEverywhere,
  summary: 'Sign the account out on every device (the backend revokes every session), this one included',
  tags: ['profile'],
  body: ourCsrfBody,
  responses: {
    200: { description: 'Signed out everywhere (HTML posts: 303 to /sign-in?logged_out=1)', schema: redirectResult },
    403: errorResponse('Missing or wrong CSRF token'),
    503: errorResponse('The backend could not be reached'),
  },
});

async function signOutEverywhere(req: Request, res: Response): Promise<void> {
  const session = sessionOf(res);
  const backend = backendClientFor(req);
  try {
    await backend.forceLogOut(callerOf(req, res));
  } catch (error) {
    if (isSignedOut(error)) return signInAgain(req, res, ROUTES.profile);
    return respondError(req, res, backendFailure(req, error));
  }
  backend.forgetSession(session.id);
  liveSessionsOf(req).forceReload({ identityId: session.identity?.id }, 'signed-out-everywhere');
  if (req.session) await new Promise<void>((resolve) => req.session.destroy(() => resolve()));
  clearAuthCookies(res, configOf(req));
  res.set('Clear-Site-Data', CLEAR_SITE_DATA);
  respondRedirect(req, res, AFTER_LOGOUT_PATH);
}

export function signOutEverywhereRoutes(): Router {
  const router = Router();
  router.post(ROUTES.signOutEverywhere, requireLoginFrom(ROUTES.profile), requireCsrf, (req, res, next) => signOutEverywhere(req, res).catch(next));
  return router;
}
