/**
 * Translated labels and messages for Kratos nodes. Kratos labels are English (or the identity schema's
 * `title`), so known fields get our own `authPage.*` labels first; any other node falls back to
 * `kratos.<label id>` with its context, then to Kratos's text (an unknown webhook id still reads).
 */
import { translateMessage, type Translate } from '../../../core/kratos/messages.ts';
import { cachedTranslate } from '../../../core/translate.ts';
import type { UiNode, UiText } from '../../../core/kratos/types.ts';
import { useView } from '../../context.ts';

/** The view's translator with param-less keys served from the start-up-stable cache. */
export function useCachedT(): Translate {
  const view = useView();
  return cachedTranslate(view.lang, view.t);
}

/** Our label keys for the fields every screen shows, by node name. */
export const FIELD_LABEL_KEYS: Readonly<Record<string, string>> = {
  identifier: 'authPage.email',
  email: 'authPage.email',
  'traits.email': 'authPage.email',
  password: 'authPage.password',
  'traits.name': 'authPage.name',
  // Not `code`: Kratos's label says which code it is (1070010 recovery, 1070011 verification, …).
};

export function translateText(t: Translate, text: UiText | undefined): string {
  return text ? translateMessage(t, text) : '';
}

export function nodeLabel(t: Translate, node: UiNode): string {
  const attributes = node.attributes;
  const isField = attributes.node_type === 'input' && attributes.type !== 'submit' && attributes.type !== 'button';
  const key = isField && attributes.name ? FIELD_LABEL_KEYS[attributes.name] : undefined;
  if (key) {
    const translated = t(key);
    if (translated && translated !== key) return translated;
  }
  const label = node.meta.label ?? attributes.label ?? attributes.title;
  if (label) return translateText(t, label);
  return attributes.name ?? '';
}

/** Display name of a social provider button: the label's context, else the provider id, title-cased. */
export function providerName(node: UiNode): string {
  const context = node.meta.label?.context;
  const fromContext = typeof context?.provider === 'string' ? context.provider : undefined;
  if (fromContext) return fromContext;
  const id = String(node.attributes.value ?? '');
  return id.charAt(0).toUpperCase() + id.slice(1);
}
