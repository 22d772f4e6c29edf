// What a /profile-settings post may change, built from an allow-list: the settings flow submit is
// assembled here from the few fields the forms offer, and nothing else a request carries (verified,
// state, metadata_admin, another identity's id, an e-mail…) ever reaches Kratos.
import type { KratosFlow } from '../../../core/kratos/types.ts';
import { LIMITS } from '../../../core/limits.ts';

export const SETTINGS_METHODS = ['profile', 'password', 'oidc'] as const;
export type SettingsMethod = (typeof SETTINGS_METHODS)[number];

/** Traits the user edits on this page. The e-mail is shown read-only: changing it is not offered. */
export const EDITABLE_TRAITS = ['name'] as const;

export type SettingsSubmit =
  | { ok: true; method: SettingsMethod; body: Record<string, unknown> }
  | { ok: false; method?: SettingsMethod; reason: 'unknown_method' | 'missing_value' | 'too_long' | 'unknown_provider' };

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A member from a form post (`traits.name`) or a JSON body (`traits: { name }`). */
function field(input: Record<string, unknown>, dotted: string): unknown {
  if (dotted in input) return input[dotted];
  const [head, ...rest] = dotted.split('.');
  let value: unknown = input[head!];
  for (const part of rest) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** Providers the flow itself offers to link or unlink: a request cannot name any other. */
function offeredProviders(flow: KratosFlow, action: 'link' | 'unlink'): Set<string> {
  return new Set(flow.ui.nodes.filter((node) => node.group === 'oidc' && node.attributes.name === action).map((node) => String(node.attributes.value ?? '')));
}

/** Which settings form a post names (a link/unlink without `method` is the login-services form). */
export function settingsMethodOf(input: Record<string, unknown>): SettingsMethod | undefined {
  const method = text(input.method) ?? (input.link !== undefined || input.unlink !== undefined ? 'oidc' : undefined);
  return (SETTINGS_METHODS as readonly string[]).includes(method ?? '') ? (method as SettingsMethod) : undefined;
}

/** The name a profile post carried, as typed (a refused one is shown again so it can be corrected). */
export function postedName(input: Record<string, unknown>): string | undefined {
  return text(field(input, 'traits.name'));
}

/**
 * The body to send to Kratos for one posted settings form. Kratos's profile method replaces the whole
 * traits object, so the traits the user cannot edit are copied from the identity the flow belongs to
 * (read from Kratos, never from the request).
 */
export function settingsSubmitFrom(input: Record<string, unknown>, flow: KratosFlow): SettingsSubmit {
  const method = settingsMethodOf(input);
  const csrf_token = text(input.csrf_token) ?? '';
  switch (method) {
    case 'profile': {
      const name = text(field(input, 'traits.name'))?.trim();
      if (name === undefined) return { ok: false, method, reason: 'missing_value' };
      if (name.length > LIMITS.nameMax) return { ok: false, method, reason: 'too_long' };
      const current = { ...(flow.identity?.traits ?? {}) };
      const traits: Record<string, unknown> = { ...current };
      if (name === '') delete traits.name;
      else traits.name = name;
      return { ok: true, method, body: { method, traits, csrf_token } };
    }
    case 'password': {
      const password = text(input.password);
      if (!password) return { ok: false, method, reason: 'missing_value' };
      if (password.length > LIMITS.passwordMax * 4) return { ok: false, method, reason: 'too_long' };
      return { ok: true, method, body: { method, password, csrf_token } };
    }
    case 'oidc': {
      const link = text(input.link);
      const unlink = text(input.unlink);
      if (link && offeredProviders(flow, 'link').has(link)) {
        // The account's address preselects it at the provider (spec §7: upstream_parameters.login_hint).
        const email = flow.identity?.traits?.email;
        const hint = typeof email === 'string' && email !== '' ? { upstream_parameters: { login_hint: email } } : {};
        return { ok: true, method, body: { method, link, csrf_token, ...hint } };
      }
      if (unlink && offeredProviders(flow, 'unlink').has(unlink)) return { ok: true, method, body: { method, unlink, csrf_token } };
      return { ok: false, method, reason: 'unknown_provider' };
    }
    default:
      return { ok: false, reason: 'unknown_method' };
  }
}
