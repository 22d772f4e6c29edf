/**
 * / (login required): the minimal signed-in home — who you are, links to profile settings and logout —
 * until DOCUMENT_APP_URL is configured, then a 303 to the document app. JSON: `{ identity }`.
 */
import { ROUTES } from '../../core/routes.ts';
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { HomePage } from '../../views/pages/HomePage.tsx';
import { configOf } from '../request-context.ts';
import { respondRedirect, responseMode } from '../flows/respond.ts';
import { requireLogin, sessionEmail } from '../flows/session.ts';
import type { KratosSession } from '../../core/kratos/types.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { renderPage } from '../render.tsx';
import { landSignedIn } from '../flows/signed-in-landing.ts';
import { sentToRestoreOffer } from '../flows/deletion-pending.ts';

documentEndpoint({
  method: 'get',
  path: ROUTES.home,
  summary: 'Signed-in home (redirects to the document app when configured)',
  tags: ['session'],
  responses: {
    200: {
      description: 'Who is signed in',
      schema: z.object({ identity: z.object({ id: z.string(), email: z.string().optional(), name: z.string().optional() }) }),
    },
    303: { description: 'Guest: to /sign-in?return_to=…; or to the document app' },
    401: errorResponse('Not signed in (JSON)'),
  },
});

async function show(req: Request, res: Response): Promise<void> {
  const config = configOf(req);
  const session = res.locals.kratosSession as KratosSession;
  // The authentication cookie before the document app is opened; the backend told once (decision 150).
  await landSignedIn(req, res, session);
  // An account waiting for deletion: the restore offer first, then back here (deletion-pending.ts).
  if (sentToRestoreOffer(req, res, session)) return;
  if (config.DOCUMENT_APP_URL && responseMode(req) !== 'json') return respondRedirect(req, res, config.DOCUMENT_APP_URL);
  const email = sessionEmail(session);
  const rawName = session.identity?.traits?.name;
  const name = typeof rawName === 'string' ? rawName : undefined;
  if (responseMode(req) === 'json') {
    return void res.set('Cache-Control', 'no-store').json({ identity: { id: session.identity?.id ?? '', email, name } });
  }
  renderPage(req, res, createElement(HomePage, { email, name }), { title: req.t('home.title', { name: name || email || '' }) });
}

export function homeRoutes(): Router {
  const router = Router();
  router.get(ROUTES.home, requireLogin, show);
  return router;
}
