import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { ViewContextReact, type ViewContext } from '../views/context.ts';
import { Document } from '../views/layout/Document.tsx';
import { guestPageOf, guestPageText, gzipGuestPage, gzipPage, type GuestPage, type IslandBundle } from './assets.ts';
import { gzipTemplatedGuestPage, gzipTemplatedPage } from './page-templates.ts';
import { identityOf, keptRender, offerRender, renderKeyOf, type RenderScope } from './kept-renders.ts';
import { isSessionDialogSuppressed } from '../views/components/SessionChangedDialog.tsx';
import { urlOnOrigin } from './flows/account-host.ts';
import type { AppLocals } from './locals.ts';
import { translator } from './request-context.ts';
import { consentView } from './consent/view.ts';
import type { KratosSession } from '../core/kratos/types.ts';

/** A page rendered for a signed-in browser carries the live-session island (decision 160). */
function liveSessionOf(res: Response, locals: AppLocals): ViewContext['liveSession'] {
  const session = res.locals.kratosSession as KratosSession | null | undefined;
  if (!session?.id || !session.identity) return undefined;
  const sessionKey = createHash('sha256').update(`live-session:${session.id}`).digest('base64url').slice(0, 16);
  return { sessionKey, socketUrl: locals.config.SOCKET_URL };
}

/**
 * The address a link back to "this page" should use (language switcher, Retry). After a POST the flow
 * in the address may have been replaced by a new one, so the address drops `flow`: the GET that follows
 * starts a fresh flow (or is sent on to the current one) instead of landing on a stale id.
 */
function pageAddress(req: Request): string {
  // `//host/x` or `/\host/x` would read as another host in a link: one leading slash only.
  if (req.method === 'GET' || req.method === 'HEAD') return req.originalUrl.replace(/^[/\\]+/, '/');
  const url = urlOnOrigin('http://local.invalid', req.originalUrl);
  url.searchParams.delete('flow');
  return url.pathname + url.search;
}

/**
 * The islands' script addresses (decision 220): a page that names its island bundle
 * (`res.locals.islandBundle`, the profile's) or shows the live session (its socket and dialog) points
 * those islands at the bundle's file; other pages load each island's own.
 */
function islandScriptsFor(res: Response, locals: AppLocals, url: string, liveSession: ViewContext['liveSession']): Readonly<Record<string, string>> {
  const named = res.locals.islandBundle as IslandBundle | undefined;
  const bundle = named ?? (liveSession && !isSessionDialogSuppressed(url) ? 'live-session' : undefined);
  return (bundle && locals.bundledIslandScripts[bundle]) || locals.islandScripts;
}

/** Builds the per-request view context from what the middleware put on req/res. */
export function viewContext(req: Request, res: Response): ViewContext {
  const locals = req.app.locals as AppLocals;
  const address = res.locals.flowAddress as string | undefined;
  // A new flow's page: links back to it (language switcher) reuse the flow, as its address bar does.
  const url = address ?? pageAddress(req);
  const liveSession = liveSessionOf(res, locals);
  return {
    lang: req.language ?? locals.config.DEFAULT_LANGUAGE,
    languages: locals.config.LANGUAGES,
    t: translator(req),
    nonce: String(res.locals.cspNonce ?? ''),
    url,
    address,
    csrfToken: res.locals.csrfToken as string | undefined,
    requestId: String(req.id ?? ''),
    toasts: res.locals.toasts as ViewContext['toasts'],
    oneTap: res.locals.oneTap as ViewContext['oneTap'],
    brand: locals.config.brand,
    islandScripts: islandScriptsFor(res, locals, url, liveSession),
    writtenScripts: new Set(),
    liveSession,
    consent: consentView(req, res),
  };
}

const canonicalByPath = new Map<string, string>();
// Our pages are a few dozen paths; any path can reach the 404 page, so the map is emptied when full.
const CANONICAL_PATHS_KEPT = 256;

/** The page's canonical address, worked out once per path (two URL parses per page otherwise). */
function canonicalOf(publicUrl: string, path: string): string {
  // Keyed by both: apps with different public addresses can share this process (tests do).
  const key = `${publicUrl} ${path}`;
  let canonical = canonicalByPath.get(key);
  if (canonical !== undefined) return canonical;
  // From the path only: a path like `//evil.example/x` must not become another host's address.
  canonical = urlOnOrigin(publicUrl, path).toString();
  if (canonicalByPath.size >= CANONICAL_PATHS_KEPT) canonicalByPath.clear();
  canonicalByPath.set(key, canonical);
  return canonical;
}

/**
 * What of the view context a kept render is keyed by: all but the translator (the language decides it), the
 * request id and the scripts the render writes (empty before it).
 */
function keyedContextOf(ctx: ViewContext): Omit<ViewContext, 't' | 'requestId' | 'writtenScripts'> {
  const { t: _translator, requestId: _requestId, writtenScripts: _writtenScripts, ...keyed } = ctx;
  return keyed;
}

/** Renders a whole HTML page. Never cached by a browser or proxy (sendHtml): it may carry a CSRF token or personal data. */
export function renderPage(req: Request, res: Response, page: ReactElement, options: { title: string; status?: number }): void {
  const locals = req.app.locals as AppLocals;
  const ctx = viewContext(req, res);
  const canonical = canonicalOf(locals.config.PUBLIC_URL, req.path);
  res.status(options.status ?? 200);
  const templated = templateValues(res, ctx);
  const values = templated?.values;
  // A page rendered before from the same inputs: a guest screen showing nothing anyone entered (decision
  // 243), or an account's own page (decision 253).
  const key = values && renderKeyOf([options.title, canonical, identityOf(locals.assets), keyedContextOf(ctx), page], values);
  const kept = key && keptRender(req.app, key, values, templated.scope);
  const html =
    kept ||
    renderToString(
      <ViewContextReact.Provider value={ctx}>
        <Document title={options.title} canonical={canonical} assets={locals.assets}>
          {page}
        </Document>
      </ViewContextReact.Provider>,
    );
  if (key && !kept) offerRender(req.app, key, html, values, templated.scope);
  // An account's own page links the full stylesheet: it is sent whole, from its own template once kept.
  if (templated?.scope === 'account') return sendHtml(req, res, `<!doctype html>${html}`, '', values);
  const guestPage = guestPageOf(html, locals.assets);
  if (guestPage) sendHtml(req, res, { start: `<!doctype html>${guestPage.start}`, rest: guestPage.rest }, locals.assets.guestCss, values);
  else sendHtml(req, res, `<!doctype html>${html}`);
}

/** Renders one fragment (a form) for the form-enhancement island to swap in. */
export function renderFragment(req: Request, res: Response, fragment: ReactElement, status = 200): void {
  const html = renderToString(<ViewContextReact.Provider value={viewContext(req, res)}>{fragment}</ViewContextReact.Provider>);
  res.status(status);
  sendHtml(req, res, html);
}

/**
 * The values made for this request that a page sent from a template carries (decisions 241, 253): those of
 * the route that vouched for the page (`res.locals.pageValues`: a guest screen showing nothing anyone
 * entered; `res.locals.accountPageValues`: an account's own page, shown to that account), and the request's
 * CSP nonce, CSRF token, One Tap offer and live-session key. Undefined for any other page, and for one with
 * toasts or another status.
 */
function templateValues(res: Response, ctx: ViewContext): { values: string[]; scope: RenderScope } | undefined {
  const guest = res.locals.pageValues as string[] | undefined;
  const account = res.locals.accountPageValues as string[] | undefined;
  const own = guest ?? account;
  // Only the page the route vouched for: not an error page it ended up rendering instead.
  if (!own || res.statusCode !== 200 || (res.locals.toasts as unknown[] | undefined)?.length) return undefined;
  const oneTap = res.locals.oneTap as ViewContext['oneTap'];
  const values = [...own, res.locals.cspNonce, res.locals.csrfToken, oneTap?.nonce, oneTap?.csrfToken, ctx.liveSession?.sessionKey];
  return { values: values.filter((value): value is string => typeof value === 'string' && value !== ''), scope: guest ? 'guest' : 'account' };
}

const COMPRESS_FROM_BYTES = 512;

/**
 * Sends rendered HTML, never cached (it may carry a CSRF token or personal data). The whole body is
 * already in hand, so it is compressed here in one go: the compression middleware's streaming path cost
 * several times more CPU per page. Gzip, not brotli, for every page: the kept starts and templates are
 * deflate (decisions 195, 241), and brotli cost more CPU per page (decision 240's figures). Other answers
 * still go through the middleware, which leaves an already-encoded body alone.
 */
function sendHtml(req: Request, res: Response, page: string | GuestPage, guestCss = '', values?: readonly string[]): void {
  res.set('Cache-Control', 'no-store');
  res.type('html');
  res.vary('Accept-Encoding');
  const length = typeof page === 'string' ? page.length : page.start.length + guestCss.length + page.rest.length;
  const accepted = req.method === 'HEAD' || length < COMPRESS_FROM_BYTES ? [] : req.acceptsEncodings();
  const html = () => (typeof page === 'string' ? page : guestPageText(page, guestCss));
  if (!accepted.includes('gzip')) {
    res.send(html());
    return;
  }
  // From a kept template (decisions 241, 253); a guest page's start and CSS were compressed once (decisions 195, 235).
  const templated = values && (typeof page === 'string' ? gzipTemplatedPage(page, values) : gzipTemplatedGuestPage(page, guestCss, values));
  if (templated) {
    res.set('Content-Encoding', 'gzip');
    res.send(templated);
    return;
  }
  void sendCompressed(req, res, typeof page === 'string' ? gzipPage(page) : gzipGuestPage(page, guestCss), html);
}

/** Sends the page once compressed; if compressing failed (logged), the page as it is, rather than none. */
async function sendCompressed(req: Request, res: Response, compressing: Promise<Buffer>, html: () => string): Promise<void> {
  let gzipped: Buffer | undefined;
  try {
    gzipped = await compressing;
  } catch (error) {
    req.log?.error({ err: error }, 'page compression failed: sent uncompressed');
  }
  // Whatever answered while the page was compressed (an error after the render) has answered already.
  if (res.headersSent) return;
  if (gzipped) res.set('Content-Encoding', 'gzip');
  res.send(gzipped ?? html());
}
