/**
 * Session helpers and route guards.
 *
 *   whoami(req, res)            → KratosSession | null (cached per request; no call without a session cookie)
 *   requireLogin                → middleware: a guest goes to `/sign-in?return_to=<this page>`
 *                                 (JSON callers get 401 `{ code: 'unauthorized', message, meta }`; a form post
 *                                 adds `logged_out=unsaved`, so the page says the change was not saved); the
 *                                 session is left in `res.locals.kratosSession`
 *   requireLoginFrom(page)      → the same for a form's action: back to `page` after signing in
 *   guestOnly                   → middleware: a signed-in user goes on to the allow-listed `return_to`, else `/`
 *                                 (JSON callers get 400 `{ code: 'session_already_available', … }`)
 *   sessionEmail(session)       → the identity's e-mail trait, when there is one
 *
 * Both guards see every signed-in landing, so they finish an account link a provider confirmed in
 * Kratos's own callback (server/flows/pending-link.ts): the browser goes to the SUCCESS notice first,
 * then on where it was going. Without a link noted in our session they do nothing more.
 */
import type { RequestHandler } from 'express';
import { urlOnOrigin } from './account-host.ts';
import type { AppLocals } from '../locals.ts';
import { boundedReturnTo, safeReturnTo } from '../security/return-to.ts';
import { whoami } from './kratos.ts';
import { finishPendingLink } from './pending-link.ts';
import { landSignedIn } from './signed-in-landing.ts';
import { throughRestoreOffer } from './deletion-pending.ts';
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { errorBody } from '../../core/errors.ts';
import { respondRedirect, wantsJson } from './respond.ts';
import type { KratosSession } from '../../core/kratos/types.ts';
import { pathWithQuery, ROUTES, SIGNED_OUT_UNSAVED } from '../../core/routes.ts';

export { whoami };

/** The guard, coming back after sign-in to `page`, or to the address asked for. */
function loginGuard(page?: string): RequestHandler {
  return async (req, res, next) => {
    try {
      const session = await whoami(req, res);
      const { config } = req.app.locals as AppLocals;
      // From the path only: `//host/x` must neither throw nor name another host.
      // Bounded too: a 10 KB address must not become a Location header browsers refuse (issue 10 #12).
      const here = boundedReturnTo(urlOnOrigin(config.PUBLIC_URL, page ?? req.originalUrl).href);
      if (session) {
        const linked = await finishPendingLink(req, res, session, here);
        return linked ? respondRedirect(req, res, linked) : next();
      }
      if (wantsJson(req)) {
        const error = mapIdentityProviderError(401, undefined, (key, params) => String(req.t(key, params as never)));
        return void res.status(401).set('Cache-Control', 'no-store').json(errorBody(error));
      }
      // A form posted after a sign-out elsewhere: its change was not made, and the sign-in page says so.
      const unsaved = req.method === 'POST' ? { logged_out: SIGNED_OUT_UNSAVED } : {};
      res.set('Cache-Control', 'no-store').redirect(303, pathWithQuery(ROUTES.signIn, { return_to: here || undefined, ...unsaved }));
    } catch (error) {
      next(error);
    }
  };
}

export const requireLogin: RequestHandler = loginGuard();

/**
 * requireLogin for a form's action (a POST only route): a guest comes back after signing in to `page`,
 * the form's page, not to the action, whose address answers no GET (it was a 404 after sign-in).
 */
export const requireLoginFrom = (page: string): RequestHandler => loginGuard(page);

export const guestOnly: RequestHandler = async (req, res, next) => {
  try {
    const session = await whoami(req, res);
    const { config } = req.app.locals as AppLocals;
    const target = safeReturnTo(req.query.return_to, config) ?? '/';
    const linked = await finishPendingLink(req, res, session, target);
    if (linked) return respondRedirect(req, res, linked);
    if (!session) return next();
    // A signed-in browser landing here (social and One Tap sign-ins come back through /sign-in): decision 150.
    await landSignedIn(req, res, session);
    const onward = throughRestoreOffer(req, session, target); // the restore offer first (deletion-pending.ts)
    if (wantsJson(req)) {
      return void res
        .status(400)
        .set('Cache-Control', 'no-store')
        .json({
          code: 'session_already_available',
          message: String(req.t('flowError.session_already_available')),
          meta: { redirect_browser_to: onward },
        });
    }
    respondRedirect(req, res, onward);
  } catch (error) {
    next(error);
  }
};

export function sessionEmail(session: KratosSession | null | undefined): string | undefined {
  const email = session?.identity?.traits?.email;
  return typeof email === 'string' ? email : undefined;
}
