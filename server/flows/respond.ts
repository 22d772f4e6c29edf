/**
 * Three ways in, one handler (docs/architecture.md "App"). A handler decides *what* happened and calls
 * one of these; they decide *how* to say it for the caller:
 *
 *   responseMode(req)  'json'     – `Accept` negotiates application/json (integrators)
 *                      'enhanced' – header `X-Enhance: 1` (the form island)
 *                      'page'     – a plain browser form post or navigation
 *
 *   respondRedirect(req, res, to, json?)
 *       page → 303 Location · enhanced → 200 + `X-Redirect-To`, empty body · json → 200 `{ redirect_to, ...json }`
 *   respondForm(req, res, { status, title, page, fragment, json })
 *       page → the whole page with `status` · enhanced → the form fragment with `status` · json → `json()` with `status`
 *   respondError(req, res, error: AppError, page?)
 *       json → `{ code, message, meta }` with error.status · otherwise `page` (or the flow error page) with error.status
 *
 * `json` and `page` are thunks so each mode only builds what it sends.
 */
import type { Request, Response } from 'express';
import { createElement, type ReactElement } from 'react';
import { FlowErrorPage } from '../../views/pages/FlowErrorPage.tsx';
import { renderFragment, renderPage } from '../render.tsx';
import { errorBody, type AppError } from '../../core/errors.ts';

export type ResponseMode = 'json' | 'enhanced' | 'page';

export function wantsJson(req: Request): boolean {
  const accept = req.headers.accept;
  if (!accept || !accept.includes('json')) return false;
  return req.accepts(['html', 'json']) === 'json';
}

export function responseMode(req: Request): ResponseMode {
  if (wantsJson(req)) return 'json';
  if (req.headers['x-enhance'] === '1') return 'enhanced';
  return 'page';
}

export function respondRedirect(req: Request, res: Response, to: string, json?: Record<string, unknown>): void {
  res.set('Cache-Control', 'no-store');
  switch (responseMode(req)) {
    case 'json':
      res.status(200).json({ redirect_to: to, ...json });
      return;
    case 'enhanced':
      res.status(200).set('X-Redirect-To', to).end();
      return;
    case 'page':
      res.redirect(303, to);
  }
}

export type FormResponse = {
  status: number;
  title: string;
  page: () => ReactElement;
  fragment: () => ReactElement;
  json: () => unknown;
};

export function respondForm(req: Request, res: Response, form: FormResponse): void {
  switch (responseMode(req)) {
    case 'json':
      res.status(form.status).set('Cache-Control', 'no-store').json(form.json());
      return;
    case 'enhanced':
      renderFragment(req, res, form.fragment(), form.status);
      return;
    case 'page':
      renderPage(req, res, form.page(), { title: form.title, status: form.status });
  }
}

export function respondError(req: Request, res: Response, error: AppError, page?: () => ReactElement): void {
  if (responseMode(req) === 'json') {
    res.status(error.status).set('Cache-Control', 'no-store').json(errorBody(error));
    return;
  }
  const element = page ? page() : createElement(FlowErrorPage, { message: error.message, code: String(error.code) });
  if (responseMode(req) === 'enhanced') return renderFragment(req, res, element, error.status);
  renderPage(req, res, element, { title: req.t('flowError.title'), status: error.status });
}
