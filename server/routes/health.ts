import { Router } from 'express';
import type { AppLocals } from '../locals.ts';

/** Liveness and readiness. Readiness turns 503 as soon as shutdown starts. */
export function healthRoutes(): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', (req, res) => {
    const locals = req.app.locals as AppLocals;
    res.set('Cache-Control', 'no-store');
    if (locals.shuttingDown) return void res.status(503).json({ status: 'shutting_down' });
    res.json({ status: 'ready' });
  });
  return router;
}
