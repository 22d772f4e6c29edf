import type { Request, Response } from 'express';
import type { ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { ViewContextReact, type ViewContext } from '../views/context.ts';
import { Document } from '../views/layout/Document.tsx';
import type { AppLocals } from './locals.ts';

type Translate = ViewContext['t'];

/**
 * The request's translator. Falls back to the default language when the i18n middleware has not
 * run, which happens only for errors raised before it (error pages must still render).
 */
export function translatorFor(req: Request): Translate {
  if (typeof req.t === 'function') return (key, options) => String(req.t(key, options as never));
  const locals = req.app.locals as AppLocals;
  const fixed = locals.i18n.getFixedT(locals.config.DEFAULT_LANGUAGE);
  return (key, options) => String(fixed(key, options as never));
}

/** Builds the per-request view context from what the middleware put on req/res. */
export function viewContext(req: Request, res: Response): ViewContext {
  const locals = req.app.locals as AppLocals;
  return {
    lang: req.language ?? locals.config.DEFAULT_LANGUAGE,
    languages: locals.config.LANGUAGES,
    t: translatorFor(req),
    nonce: String(res.locals.cspNonce ?? ''),
    url: req.originalUrl,
    csrfToken: res.locals.csrfToken as string | undefined,
    requestId: String(req.id ?? ''),
  };
}

/** Renders a whole HTML page. HTML is never cached: it may carry a CSRF token or personal data. */
export function renderPage(
  req: Request,
  res: Response,
  page: ReactElement,
  options: { title: string; status?: number },
): void {
  const locals = req.app.locals as AppLocals;
  const ctx = viewContext(req, res);
  const canonical = new URL(req.path, locals.config.PUBLIC_URL).toString();
  const html = renderToString(
    <ViewContextReact.Provider value={ctx}>
      <Document title={options.title} canonical={canonical} assets={locals.assets}>
        {page}
      </Document>
    </ViewContextReact.Provider>,
  );
  res.status(options.status ?? 200);
  res.set('Cache-Control', 'no-store');
  res.type('html').send(`<!doctype html>${html}`);
}

/** Renders one fragment (a form) for the form-enhancement island to swap in. */
export function renderFragment(req: Request, res: Response, fragment: ReactElement, status = 200): void {
  const html = renderToString(
    <ViewContextReact.Provider value={viewContext(req, res)}>{fragment}</ViewContextReact.Provider>,
  );
  res.status(status);
  res.set('Cache-Control', 'no-store');
  res.type('html').send(html);
}
