import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { LIMITS } from '../../core/limits.ts';
import { KitForm, KitPage, kitToasts, type KitFormState } from '../../views/pages/KitPage.tsx';
import { renderFragment, renderPage } from '../render.tsx';
import { provideCsrfToken, requireCsrf } from '../security/csrf.ts';

/**
 * The UI kit showcase, mounted with the test hooks (ENABLE_TEST_ROUTES=true only):
 * - GET  /__test/kit           every component, a server-rendered toast, the demo form;
 * - POST /__test/kit/form      the three ways in of every form handler (docs/architecture.md):
 *                              empty name → 400 (the form fragment when enhanced, the page otherwise);
 *                              intent=fail → 503, for the islands' "nothing lost" path;
 *                              success → 200 + X-Redirect-To when enhanced, 303 otherwise;
 * - POST /__test/kit/confirm   the ConfirmDialog's form: back to the kit page.
 */
export function kitRoutes(): Router {
  const router = Router();
  const title = (req: Request) => req.t('ui.kit.title');
  const enhanced = (req: Request) => req.get('X-Enhance') === '1';

  const page = (req: Request, res: Response, status = 200, form?: KitFormState) => {
    const saved = typeof req.query.saved === 'string' ? req.query.saved.slice(0, 32) : undefined;
    res.locals.toasts = kitToasts((key, options) => String(req.t(key, options as never)), saved);
    renderPage(req, res, createElement(KitPage, { form, saved }), { title: title(req), status });
  };
  const goTo = (req: Request, res: Response, url: string) => {
    if (enhanced(req)) return void res.status(200).set('X-Redirect-To', url).end();
    res.redirect(303, url);
  };

  router.get('/__test/kit', provideCsrfToken, (req, res) => page(req, res));

  router.post('/__test/kit/form', requireCsrf, provideCsrfToken, (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.trim().slice(0, LIMITS.nameMax) : '';
    if (body.intent === 'fail') {
      res.status(503);
      return enhanced(req) ? void res.type('text').send('unavailable') : page(req, res, 503, { name });
    }
    if (!name) {
      const form = { name, error: req.t('ui.kit.nameRequired') };
      return enhanced(req) ? renderFragment(req, res, createElement(KitForm, form), 400) : page(req, res, 400, form);
    }
    goTo(req, res, `/__test/kit?${new URLSearchParams({ saved: name }).toString()}`);
  });

  router.post('/__test/kit/confirm', requireCsrf, (req, res) => goTo(req, res, '/__test/kit'));
  return router;
}
