// The settings flow's form (contract §5.4): the profile traits, the password, and the oidc link and
// unlink buttons when providers are configured (unlink only while another first factor remains).
import { msg, type UiText } from './messages.ts';
import { csrfNode, input, SETTINGS_GROUPS, sortNodes, traitNodes, type UiNode } from './nodes.ts';
import { providerLabel } from './login.ts';
import type { TraitErrors } from './schema.ts';
import type { Service } from './service.ts';
import type { StoredIdentity } from './store.ts';

export function linkedProviders(i: StoredIdentity): string[] {
  const ps = i.credentials.oidc?.config.providers as { provider: string }[] | undefined;
  return (ps ?? []).map((p) => p.provider);
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
  const oidc = svc.config.selfservice.methods.oidc;
  if (oidc.enabled) {
    const linked = linkedProviders(i);
    const firstFactors = (i.credentials.password ? 1 : 0) + linked.length;
    for (const p of oidc.config.providers) {
      if (!linked.includes(p.id)) nodes.push(input('link', 'submit', 'oidc', { value: p.id, label: msg(1050002, { provider: providerLabel(p) }) }));
    }
    if (firstFactors >= 2) {
      for (const p of oidc.config.providers) {
        if (linked.includes(p.id)) nodes.push(input('unlink', 'submit', 'oidc', { value: p.id, label: msg(1050003, { provider: providerLabel(p) }) }));
      }
    }
  }
  return sortNodes(nodes, SETTINGS_GROUPS, ['csrf_token', ...svc.schema.props.map(([n]) => `traits.${n}`), 'password']);
}
