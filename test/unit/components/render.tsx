// Renders a kit component inside a view context with the real English (or other) catalogue.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import i18next from 'i18next';
import type { ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { ViewContextReact, type ViewContext } from '../../../views/context.ts';

const LANGUAGES = ['en', 'vi', 'fr', 'pt', 'es'];
const i18n = i18next.createInstance();
await i18n.init({
  resources: Object.fromEntries(LANGUAGES.map((lng) => [lng, { common: JSON.parse(readFileSync(path.resolve('locales', lng, 'common.json'), 'utf8')) }])),
  lng: 'en',
  fallbackLng: false,
  defaultNS: 'common',
  ns: ['common'],
  interpolation: { escapeValue: false },
});

/** The translation of a key, failing loudly when the catalogue lacks it. */
export function translate(key: string, lng = 'en', options: Record<string, unknown> = {}): string {
  if (!i18n.exists(key, { lng })) throw new Error(`missing translation ${lng}:${key}`);
  return String(i18n.getFixedT(lng)(key, options as never));
}

export function render(element: ReactElement, context: Partial<ViewContext> = {}): string {
  const lng = context.lang ?? 'en';
  const value: ViewContext = {
    lang: lng,
    languages: LANGUAGES,
    t: (key, options) => translate(key, lng, options),
    nonce: 'test-nonce',
    url: '/profile-settings?x=1',
    csrfToken: 'csrf-value',
    requestId: 'req-1',
    brand: { name: 'Accounts', logoUrl: '/logo.svg' },
    ...context,
  };
  return renderToString(<ViewContextReact.Provider value={value}>{element}</ViewContextReact.Provider>);
}

/** The first element's opening tag whose markup contains `marker`. */
export function tagWith(html: string, marker: string): string {
  const tags = html.match(/<[a-z][^>]*>/g) ?? [];
  const found = tags.find((tag) => tag.includes(marker));
  if (!found) throw new Error(`no tag with ${marker} in ${html}`);
  return found;
}
