import { Router } from 'express';
import type { AppLocals } from '../locals.ts';
import { ROUTES } from '../../core/routes.ts';

const CHECK_TIMEOUT_MS = 2_000;

async function passes(check: AppLocals['readiness'][number]['check']): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(check), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: it should get traffic). Readiness
 * turns 503 as soon as shutdown starts, and while any registered dependency check fails.
 */
export function healthRoutes(): Router {
  const router = Router();
  router.get(ROUTES.health, (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get(ROUTES.ready, async (req, res) => {
    const locals = req.app.locals as AppLocals;
    res.set('Cache-Control', 'no-store');
    if (locals.shuttingDown) return void res.status(503).json({ status: 'shutting_down' });
    const results = await Promise.all(locals.readiness.map(async ({ name, check }) => [name, await passes(check)] as const));
    const failing = results.filter(([, ok]) => !ok).map(([name]) => name);
    if (failing.length > 0) return void res.status(503).json({ status: 'unavailable', failing });
    res.json({ status: 'ready' });
  });
  return router;
}
