// The settings flow's form (contract §5.4): the profile traits, the password, and the oidc link and
// unlink buttons when providers are configured (unlink only while another first factor remains).
import { msg, type UiText } from './messages.ts';
import { csrfNode, input, SETTINGS_GROUPS, sortNodes, traitNodes, type UiNode } from './nodes.ts';
import { countFirstFactors } from './identities.ts';
import { configuredProviders, linkedProviderIds, providerLabel } from './oidc/config.ts';
import type { TraitErrors } from './schema.ts';
import type { Service } from './service.ts';
import type { StoredIdentity } from './store.ts';

/** The configured providers linked to the identity, in the order they were linked (linkedProviders). */
export function linkedProviders(svc: Service, i: StoredIdentity): string[] {
  const configured = configuredProviders(svc).map((p) => p.id);
  return linkedProviderIds(i.credentials).filter((id) => configured.includes(id));
}

export function settingsNodes(svc: Service, i: StoredIdentity, traits: Record<string, unknown> = i.traits, errs?: TraitErrors, pwMsg?: UiText): UiNode[] {
  const tn = traitNodes(svc.schema, 'profile', traits);
  for (const n of tn) n.messages = [...(errs?.fields[String(n.attributes.name)] ?? [])];
  const pw = input('password', 'password', 'password', { required: true, autocomplete: 'new-password', label: msg(1070001) });
  if (pwMsg) pw.messages.push(pwMsg);
  const nodes: UiNode[] = [
    csrfNode(),
    ...tn,
    input('method', 'submit', 'profile', { value: 'profile', label: msg(1070003) }),
    pw,
    input('method', 'submit', 'password', { value: 'password', label: msg(1070003) }),
  ];
  // PopulateSettingsMethod: a link button per configured provider not linked yet, and, while another
  // first factor remains, an unlink button per linked one; the sort then orders them by provider id.
  const providers = configuredProviders(svc);
  const linkedIds = linkedProviderIds(i.credentials);
  for (const p of providers) {
    if (!linkedIds.includes(p.id)) nodes.push(input('link', 'submit', 'oidc', { value: p.id, label: msg(1050002, { provider: providerLabel(p) }) }));
  }
  if (countFirstFactors(i) > 1) {
    for (const id of linkedProviders(svc, i)) {
      const p = providers.find((x) => x.id === id)!;
      nodes.push(input('unlink', 'submit', 'oidc', { value: p.id, label: msg(1050003, { provider: providerLabel(p) }) }));
    }
  }
  return sortNodes(nodes, SETTINGS_GROUPS, ['csrf_token', ...svc.schema.props.map(([n]) => `traits.${n}`), 'password']);
}
