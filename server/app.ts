import { randomUUID } from 'node:crypto';
import path from 'node:path';
import compression from 'compression';
import cookieParser from 'cookie-parser';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { handle as i18nHandle } from 'i18next-http-middleware';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { createElement } from 'react';
import { CrashPage } from '../views/pages/CrashPage.tsx';
import { NotFoundPage } from '../views/pages/NotFoundPage.tsx';
import { loadManifest } from './assets.ts';
import type { Config } from './config.ts';
import { createI18n } from './i18n.ts';
import type { AppLocals } from './locals.ts';
import { renderPage } from './render.tsx';
import { cspNonce, securityHeaders } from './security/headers.ts';
import { healthRoutes } from './routes/health.ts';
import { testRoutes } from './routes/test-hooks.ts';
import { mountRoutes } from './routes/index.ts';

const REQUEST_ID = /^[\w.-]{1,128}$/;

export async function createApp(config: Config, logger: Logger): Promise<Express> {
  const app = express();
  const manifest = loadManifest(config.ASSETS_DIR);
  const locals: AppLocals = {
    config,
    logger,
    i18n: await createI18n(config.LANGUAGES, config.DEFAULT_LANGUAGE),
    assets: { css: manifest['app.css'] ?? '', js: manifest['main.js'] ?? '' },
    shuttingDown: false,
  };
  Object.assign(app.locals, locals);

  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // Only the path: query strings may carry flow ids, codes or tokens.
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, path: String(req.url).split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(cspNonce, securityHeaders(config));
  app.use(compression());

  const assetsDir = path.resolve(config.ASSETS_DIR);
  app.use('/assets', express.static(path.join(assetsDir, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  app.use(express.static(assetsDir, { maxAge: '1d', index: false, ignore: ['manifest.json'] } as never));

  app.use(healthRoutes());
  app.use(cookieParser());
  app.use(i18nHandle(locals.i18n));
  app.use(express.urlencoded({ extended: false, limit: '64kb' }));
  app.use(express.json({ limit: '64kb' }));

  if (config.ENABLE_TEST_ROUTES) app.use(testRoutes());
  mountRoutes(app);

  app.get('/404', (req, res) => renderPage(req, res, createElement(NotFoundPage), { title: req.t('notFound.title'), status: 404 }));
  app.use((req, res) => renderPage(req, res, createElement(NotFoundPage), { title: req.t('notFound.title'), status: 404 }));

  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) req.log.error({ err: error }, 'unhandled error');
    if (res.headersSent) return void res.end();
    if (status !== 500) return renderPage(req, res, createElement(NotFoundPage), { title: req.t('notFound.title'), status });
    renderPage(req, res, createElement(CrashPage), { title: req.t('crash.title'), status: 500 });
  };
  app.use(onError);
  return app;
}
