// The login services of an account as the profile shows them: which are linked, and what the user can
// do with each. Kratos's settings flow says it with its `oidc` nodes (a `link` button per configured
// provider not linked yet, an `unlink` button per linked one), and leaves out every unlink button when
// unlinking would remove the last way to sign in (PopulateSettingsMethod: fewer than two first-factor
// credentials). Which providers are linked then comes from the identity's credentials (admin API).
import type { UiContainer, UiNode } from '../../../core/kratos/types.ts';

export type LinkedLogin = {
  /** Kratos's provider id (google, microsoft, dropbox, apple, or another configured one). */
  provider: string;
  /** Kratos's label for the provider (its configured `label`), when the flow names it. */
  label?: string;
  linked: boolean;
  /**
   * What the user can do now: link it, unlink it, or nothing because it is the last way in (Kratos
   * offers no unlink then; the page says why).
   */
  action: 'link' | 'unlink' | 'lastWayIn';
};

function oidcNodes(ui: UiContainer, name: 'link' | 'unlink'): UiNode[] {
  return ui.nodes.filter((node) => node.group === 'oidc' && node.attributes.name === name && typeof node.attributes.value === 'string');
}

function labelOf(node: UiNode): string | undefined {
  const provider = node.meta?.label?.context?.provider;
  return typeof provider === 'string' && provider !== '' ? provider : undefined;
}

/** The provider id of an `oidc` credential identifier (`<provider>:<subject>`). */
export function providerOfIdentifier(identifier: string): string | undefined {
  const index = identifier.indexOf(':');
  return index > 0 ? identifier.slice(0, index) : undefined;
}

/**
 * The account's login services: linked ones first, then those it can link, each in Kratos's order.
 * `linkedProviders` (from the identity's credentials; undefined when they could not be read) adds the
 * linked provider Kratos offers no unlink for. It counts as the last way in only when the flow offers
 * no unlink at all: with other unlink buttons present, a linked provider without one is no longer
 * configured (Kratos cannot sign in with it either), so it is not listed.
 */
export function linkedLoginsOf(ui: UiContainer, linkedProviders: readonly string[] | undefined): LinkedLogin[] {
  const unlinkable = oidcNodes(ui, 'unlink').map((node): LinkedLogin => ({
    provider: String(node.attributes.value),
    label: labelOf(node),
    linked: true,
    action: 'unlink',
  }));
  const linkable = oidcNodes(ui, 'link').map((node): LinkedLogin => ({
    provider: String(node.attributes.value),
    label: labelOf(node),
    linked: false,
    action: 'link',
  }));
  const offered = new Set([...unlinkable, ...linkable].map((login) => login.provider));
  const lastWayIn =
    unlinkable.length === 0
      ? [...new Set(linkedProviders ?? [])]
          .filter((provider) => !offered.has(provider))
          .map((provider): LinkedLogin => ({ provider, linked: true, action: 'lastWayIn' }))
      : [];
  return [...lastWayIn, ...unlinkable, ...linkable];
}

/**
 * The provider's name on the page: our translation (`profile.linkedLogins.provider.<id>`, brand names),
 * else Kratos's configured label, else the id capitalised.
 */
export function providerName(t: (key: string) => string, provider: string, label?: string): string {
  const key = `profile.linkedLogins.provider.${provider}`;
  const text = t(key);
  if (text && text !== key) return text;
  return label ?? provider.charAt(0).toUpperCase() + provider.slice(1);
}
