import type { Express } from 'express';
import { swaggerRoutes } from './swagger.ts';
import { languageRoutes } from './language.ts';
import { signInRoutes } from './sign-in.ts';

/**
 * Mounts every feature router, before the 404 handler. One line per feature: adding a screen
 * means adding its router here and nowhere else in app.ts.
 */
export function mountRoutes(app: Express): void {
  app.use(swaggerRoutes());
  app.use(languageRoutes());
  app.use(signInRoutes());
}
