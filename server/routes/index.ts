import type { Express } from 'express';

/**
 * Mounts every feature router, before the 404 handler. One line per feature: adding a screen
 * means adding its router here and nowhere else in app.ts.
 */
export function mountRoutes(app: Express): void {
  void app;
}
