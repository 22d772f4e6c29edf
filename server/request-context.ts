/**
 * What every handler reads off the request, in one place:
 *
 *   translator(req) → the request's Translate, param-less keys served from the shared cache
 *   configOf(req)   → the app Config
 *
 * The translator falls back to the default language when the i18n middleware has not run, which only
 * happens for errors raised before it (error pages must still render).
 */
import type { Request } from 'express';
import { cachedTranslate, type Translate } from '../core/translate.ts';
import type { AppLocals } from './locals.ts';

export function configOf(req: Request) {
  return (req.app.locals as AppLocals).config;
}

export function translator(req: Request): Translate {
  if (typeof req.t === 'function') return cachedTranslate(req.language ?? '', (key, params) => String(req.t(key, params as never)));
  const locals = req.app.locals as AppLocals;
  const fixed = locals.i18n.getFixedT(locals.config.DEFAULT_LANGUAGE);
  return cachedTranslate(locals.config.DEFAULT_LANGUAGE, (key, params) => String(fixed(key, params as never)));
}
