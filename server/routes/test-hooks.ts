import { Router } from 'express';

/**
 * Development and test hooks, mounted only with ENABLE_TEST_ROUTES=true (refused in production):
 * /__test/crash throws inside a handler so the crash screen can be seen and tested;
 * /__test/slow?ms=N answers after N ms, for graceful-shutdown tests.
 */
export function testRoutes(): Router {
  const router = Router();
  router.get('/__test/crash', () => {
    throw new Error('Deliberate crash from /__test/crash');
  });
  router.get('/__test/slow', async (req, res) => {
    const ms = Math.min(Number(req.query.ms) || 1000, 30_000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    res.json({ waited: ms });
  });
  return router;
}
