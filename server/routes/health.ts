import { Router } from 'express';
import type { Config } from '../config.ts';
import { kratosAdapter, upstreamState } from '../flows/transport.ts';
import type { AppLocals } from '../locals.ts';
import { ROUTES } from '../../core/routes.ts';

const CHECK_TIMEOUT_MS = 2_000;
/** How long one look at the identity service (a call's outcome or a probe) stands for readiness. */
const IDENTITY_TTL_MS = 2_000;
const IDENTITY_PROBE_TIMEOUT_MS = 1_000;

/**
 * Readiness of the identity service, cheap enough for a load balancer probing every second: a page's
 * Kratos call that failed in the last 2 s means "not ready", one that succeeded means "ready";
 * otherwise one shared probe of Kratos's `GET /health/ready` (1 s deadline), remembered for 2 s.
 * So /readyz turns 503 while Kratos is down and back to 200 within a few seconds of its return.
 */
export function identityReadiness(config: Pick<Config, 'KRATOS_PUBLIC_URL'>): () => Promise<boolean> {
  const base = config.KRATOS_PUBLIC_URL.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  let probed: { ok: boolean; at: number } | undefined;
  let probing: Promise<boolean> | undefined;
  return async () => {
    const now = Date.now();
    const call = upstreamState(origin);
    const callFresh = call !== undefined && now - call.at < IDENTITY_TTL_MS;
    if (callFresh && !call.up) return false;
    if (callFresh && call.up && (!probed || call.at > probed.at)) return true;
    if (probed && now - probed.at < IDENTITY_TTL_MS) return probed.ok;
    probing ??= kratosAdapter({ url: `${base}/health/ready`, method: 'get', timeout: IDENTITY_PROBE_TIMEOUT_MS, probe: true, validateStatus: () => true })
      .then((answer) => answer.status < 500)
      .catch(() => false)
      .then((ok) => {
        probed = { ok, at: Date.now() };
        probing = undefined;
        return ok;
      });
    return probing;
  };
}

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
