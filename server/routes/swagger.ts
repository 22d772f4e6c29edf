/**
 * The integrators' API reference: `/swagger/openapi.json` (the OpenAPI 3.1 document built from the
 * registry in server/openapi/registry.ts) and `/swagger/ui` (Swagger UI from the `swagger-ui-dist`
 * package, served from our own origin under /swagger/assets/, never from a CDN).
 *
 * CSP: the page keeps the app's policy (nonce-only scripts: the bundle and the small init script both
 * carry the per-request nonce). Swagger UI's React components set `style` attributes at run time,
 * which `style-src` without 'unsafe-inline' blocks, so this one route adds
 * `style-src-attr 'unsafe-inline'` (attributes only; <style> elements stay nonce/self-only).
 * See docs/decisions/030-swagger-csp.md.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router, type Request, type Response } from 'express';
import type { AppLocals } from '../locals.ts';
import { buildOpenApiDocument } from '../openapi/registry.ts';
import { ROUTES } from '../../core/routes.ts';

const SWAGGER_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js'];
const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Relaxes the page's CSP for Swagger UI's runtime style attributes only (see the header comment). */
function allowStyleAttributes(res: Response): void {
  const policy = res.getHeader('Content-Security-Policy');
  if (typeof policy === 'string') res.setHeader('Content-Security-Policy', `${policy};style-src-attr 'unsafe-inline'`);
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function uiPage(req: Request, res: Response): string {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ''));
  const lang = escapeHtml(req.language ?? 'en');
  const title = escapeHtml(req.t('swagger.title'));
  // No inline handlers, no eval: the init script only points Swagger UI at our document.
  const init = `window.addEventListener('DOMContentLoaded',function(){window.ui=SwaggerUIBundle({url:'${ROUTES.swaggerDocument}',dom_id:'#swagger-ui',deepLinking:true,validatorUrl:null,tryItOutEnabled:false,withCredentials:true})});`;
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/swagger/assets/swagger-ui.css">
<script nonce="${nonce}" src="/swagger/assets/swagger-ui-bundle.js"></script>
<script nonce="${nonce}">${init}</script>
</head>
<body>
<noscript><p>${escapeHtml(req.t('swagger.noscript'))} <a href="/swagger/openapi.json">/swagger/openapi.json</a></p></noscript>
<div id="swagger-ui"></div>
</body>
</html>`;
}

export function swaggerRoutes(): Router {
  const router = Router();
  router.get(ROUTES.swaggerDocument, (req, res) => {
    const { config } = req.app.locals as AppLocals;
    res.set('Cache-Control', 'no-cache');
    res.json(buildOpenApiDocument(config));
  });
  router.get(['/swagger', '/swagger/'], (_req, res) => res.redirect(301, ROUTES.swaggerUi));
  router.get(ROUTES.swaggerUi, (req, res) => {
    allowStyleAttributes(res);
    res.set('Cache-Control', 'no-store');
    res.type('html').send(uiPage(req, res));
  });
  const assets = express.static(swaggerDir, { index: false, maxAge: '1d', fallthrough: true });
  router.use('/swagger/assets', (req, res, next) => {
    if (!SWAGGER_ASSETS.includes(req.path.replace(/^\//, ''))) return next();
    assets(req, res, next);
  });
  return router;
}
