// The backend stand-in's HTTP surface (spec §7) as an Express app, assembled from the route modules in
// routes/. The API is described by the OpenAPI document generated from those modules (openapi.ts).
import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { createAccess } from './access.ts';
import { createAccounts } from './accounts.ts';
import { CallLog, recordCalls } from './call-log.ts';
import { buildOpenApiDocument } from './openapi.ts';
import type { AppOptions } from './options.ts';
import { adminRoutes } from './routes/admin.ts';
import { authRoutes } from './routes/auth.ts';
import { avatarRoutes, mountAvatarFiles } from './routes/avatars.ts';
import { errorHandler, mountMethodAnswers, notFound } from './routes/errors.ts';
import { invitationRoutes } from './routes/invitations.ts';
import { locationRoutes, mountLocationPreflight } from './routes/location.ts';
import type { Handler, Route } from './routes/route.ts';
import { userRoutes } from './routes/users.ts';

export { DAY_MS, DEFAULT_DELETION_GRACE_MS, DEFAULT_INVITATION_TTL_MS, silentLogger, type AppOptions, type Logger } from './options.ts';

/** Every route the stand-in serves under /api, in the order they are mounted. */
export function backendRoutes(o: AppOptions): { routes: Route[]; purgeDue: () => Promise<number> } {
  o.calls ??= new CallLog();
  const accounts = createAccounts(o);
  const ctx = { o, accounts, access: createAccess(o, accounts) };
  const routes: Route[] = [
    ...authRoutes(ctx),
    ...invitationRoutes(ctx),
    ...userRoutes(ctx),
    ...avatarRoutes(ctx),
    ...locationRoutes(o),
    ...adminRoutes(ctx),
    {
      method: 'get',
      path: '/api/health',
      doc: { tag: 'service', summary: 'Liveness', responses: { 200: { description: 'Alive', schema: z.object({ status: z.literal('ok') }) } } },
      handler: () => ({ status: 'ok' }),
    },
  ];
  let document: unknown;
  routes.push({
    method: 'get',
    path: '/api/openapi.json',
    doc: { tag: 'service', summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1', schema: z.looseObject({ openapi: z.string() }) } } },
    handler: () => (document ??= buildOpenApiDocument(routes)),
  });
  return { routes, purgeDue: accounts.purgeDue };
}

const wrap =
  (handler: Handler): RequestHandler =>
  async (req, res, next) => {
    try {
      const result = await handler(req, res);
      if (!res.headersSent) res.json(result);
    } catch (err) {
      next(err);
    }
  };

export function createBackendApp(o: AppOptions): { app: express.Express; purgeDue: () => Promise<number> } {
  const calls = (o.calls ??= new CallLog());
  const { routes, purgeDue } = backendRoutes(o);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.use(recordCalls(calls, o.clock));

  const jsonParser = express.json({ limit: '32kb', strict: true, type: ['application/json', 'application/*+json'] });
  for (const r of routes) {
    const handlers: RequestHandler[] = r.raw || r.method === 'get' ? [wrap(r.handler)] : [jsonParser, wrap(r.handler)];
    app[r.method](r.path, ...handlers);
  }
  mountLocationPreflight(app, o);
  mountMethodAnswers(app, routes);
  mountAvatarFiles(app, o.avatarsDir);
  app.use(notFound);
  app.use(errorHandler(o.logger));
  return { app, purgeDue };
}
