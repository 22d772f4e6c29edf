import { Router } from 'express';
import { createElement } from 'react';
import { renderPage } from '../render.tsx';
import { CSRF_FIELD, provideCsrfToken, requireCsrf } from '../security/csrf.ts';
import { kitRoutes } from './kit.ts';

/**
 * Development and test hooks, mounted only with ENABLE_TEST_ROUTES=true (refused in production;
 * `npm start` turns them on for the local product):
 * - /__test/crash          throws inside a handler: the crash screen, to see and to test;
 * - /__test/crash-async    rejects inside an async handler: the same crash screen;
 * - /__test/stray-exception answers 202, then throws outside any request: the process must survive;
 * - /__test/slow?ms=N      sends its headers at once and its body after N ms (graceful shutdown tests);
 * - /__test/form           a form of our own protected by CSRF (GET renders it, POST checks it).
 */
export function testRoutes(): Router {
  const router = Router();
  router.use(kitRoutes());
  router.get('/__test/crash', () => {
    throw new Error('Deliberate crash from /__test/crash');
  });
  router.get('/__test/crash-async', async () => {
    await Promise.resolve();
    throw new Error('Deliberate async crash from /__test/crash-async');
  });
  router.get('/__test/stray-exception', (_req, res) => {
    res.status(202).json({ status: 'throwing outside the request' });
    setImmediate(() => {
      throw new Error('Deliberate stray exception from /__test/stray-exception');
    });
  });
  router.get('/__test/slow', async (req, res) => {
    const ms = Math.min(Number(req.query.ms) || 1000, 30_000);
    // Headers first: a client then knows its request is in flight before the body arrives.
    res.status(200).type('json');
    res.flushHeaders();
    await new Promise((resolve) => setTimeout(resolve, ms));
    res.end(JSON.stringify({ waited: ms }));
  });
  router.get('/__test/form', provideCsrfToken, (req, res) => {
    const form = createElement(
      'main',
      { className: 'page' },
      createElement(
        'form',
        { method: 'post', action: '/__test/form' },
        createElement('input', { type: 'hidden', name: CSRF_FIELD, value: String(res.locals.csrfToken) }),
        createElement('input', { type: 'text', name: 'note', 'aria-label': 'note' }),
        createElement('button', { type: 'submit' }, 'Send'),
      ),
    );
    renderPage(req, res, form, { title: 'Test form' });
  });
  router.post('/__test/form', requireCsrf, (req, res) => {
    res.json({ accepted: true, note: (req.body as { note?: string } | undefined)?.note ?? null });
  });
  return router;
}
