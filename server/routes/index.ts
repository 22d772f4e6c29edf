import type { Express } from 'express';
import { swaggerRoutes } from './swagger.ts';

/**
 * Mounts every feature router, before the 404 handler. One line per feature: adding a screen
 * means adding its router here and nowhere else in app.ts.
 */
export function mountRoutes(app: Express): void {
  app.use(swaggerRoutes());
  void app;
}
