// Account linking (Kratos v1.3.1): a social sign-up whose e-mail another identity already has becomes a
// login flow that asks for that identity's existing way in (populateAccountLinkingUI), and signing in
// there adds the social credential to it (PostLoginHook → maybeLinkCredentials → Strategy.Link).
import { newFlow, type Flow } from '../flows.ts';
import type { Ctx } from '../http.ts';
import { msg } from '../messages.ts';
import type { UiNode } from '../nodes.ts';
import { takeOverReturnTo } from '../request-url.ts';
import type { Service } from '../service.ts';
import type { Credential, StoredIdentity } from '../store.ts';
import { configuredProviders } from './config.ts';

/** flow.DuplicateCredentialsData, kept in the flow's internal context. */
export interface DuplicateCredentials {
  credentials_type: 'oidc';
  credentials_config: { providers: OidcLink[] };
  duplicate_identifier: string;
  /** The provider that led here (its button is left out of the linking form). */
  used_provider: string;
}

/** One entry of an oidc credential's config.providers, in CredentialsOIDCProvider's field order. */
export interface OidcLink {
  subject: string;
  provider: string;
  initial_id_token: string;
  initial_access_token: string;
  initial_refresh_token: string;
}

export function duplicateOf(f: Flow): DuplicateCredentials | undefined {
  const d = f.internal.duplicate_credentials as DuplicateCredentials | undefined;
  return d && typeof d.duplicate_identifier === 'string' ? d : undefined;
}

/** The node changes of populateAccountLinkingUI (also reapplied when a failed sign-in rebuilds the form). */
export function linkingNodes(nodes: UiNode[], dup: DuplicateCredentials): UiNode[] {
  const out: UiNode[] = [];
  for (const n of nodes) {
    const label = n.meta.label;
    if (!label || n.group === 'default') {
      out.push(n);
      continue;
    }
    if (n.group === 'oidc' && label.context?.provider_id === dup.used_provider) continue;
    // Only "Sign in" (1010001) and "Sign in with {provider}" (1010002) are relabelled; the password
    // button of a fresh v1.3.1 login flow is "Sign in with password" (1010022) and keeps its label.
    if (label.id === 1010001) n.meta = { label: msg(1010017) };
    else if (label.id === 1010002) n.meta = { label: msg(1010018, { provider: label.context?.provider }) };
    out.push(n);
  }
  const identifier = out.find((n) => n.attributes.name === 'identifier');
  if (identifier) {
    const a: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(identifier.attributes)) {
      if (k === 'value') continue;
      a[k] = k === 'type' ? 'hidden' : v;
      if (k === 'type') a.value = dup.duplicate_identifier;
    }
    identifier.attributes = a;
  }
  return out;
}

/** populateAccountLinkingUI on a new login flow: the form above and message 1010016 alone. */
export function applyAccountLinkingUi(svc: Service, f: Flow, dup: DuplicateCredentials): void {
  f.ui.nodes = linkingNodes(f.ui.nodes, dup);
  const used = configuredProviders(svc).find((p) => p.id === dup.used_provider);
  const usedLabel = used ? used.label || used.provider || used.id : dup.used_provider;
  const loginUi = svc.config.selfservice.flows.login.ui_url;
  // login_hints is off (Kratos's default), so the duplicate error names no credential types or providers.
  f.ui.messages = [
    msg(1010016, {
      available_credential_types: null,
      available_providers: null,
      duplicateIdentifier: dup.duplicate_identifier,
      duplicate_identifier: dup.duplicate_identifier,
      newLoginUrl: loginUi,
      new_login_url: loginUi,
      provider: usedLabel,
    }),
  ];
}

/**
 * registrationToLogin: a new login flow for this request, with the registration's return_to, messages,
 * internal context and transient payload, marked active oidc.
 */
export function registrationToLogin(svc: Service, ctx: Ctx, rf: Flow, nodes: UiNode[]): Flow {
  const lf = newFlow(svc, ctx, 'login', nodes, { refresh: false, requested_aal: 'aal1', type: rf.type });
  if (rf.type === 'api') lf.csrf_token = '';
  lf.request_url = takeOverReturnTo(rf.request_url, ctx.requestUrl);
  if (rf.ui.messages?.length) lf.ui.messages = [...rf.ui.messages];
  lf.internal = { ...rf.internal };
  delete lf.internal.layout;
  lf.transient_payload = rf.transient_payload;
  lf.active = 'oidc';
  return lf;
}

/** Strategy.linkCredentials: appends `<provider>:<subject>` to the identity's oidc credential. */
export function linkCredentials(svc: Service, i: StoredIdentity, link: OidcLink): void {
  const now = new Date(svc.clock.now()).toISOString();
  const existing = i.credentials.oidc;
  const identifier = `${link.provider}:${link.subject}`;
  if (!existing) {
    i.credentials.oidc = { type: 'oidc', identifiers: [identifier], config: { providers: [link] }, version: 0, created_at: now, updated_at: now };
    return;
  }
  const cred: Credential = existing;
  cred.identifiers = [...cred.identifiers, identifier];
  cred.config = { ...cred.config, providers: [...((cred.config.providers as OidcLink[] | undefined) ?? []), link] };
  cred.updated_at = now;
}

/**
 * maybeLinkCredentials, for a sign-in on an account-linking flow: the signed-in identity must own the
 * duplicate identifier ("mismatch" otherwise, 4010009); then the social credential is added to it.
 */
export function maybeLinkCredentials(svc: Service, f: Flow, identity: StoredIdentity): 'none' | 'linked' | 'mismatch' {
  const dup = duplicateOf(f);
  if (!dup) return 'none';
  const owns = Object.values(identity.credentials).some((c) => c.identifiers.includes(dup.duplicate_identifier));
  if (!owns) return 'mismatch';
  const link = dup.credentials_config.providers[0];
  if (!link) return 'none';
  linkCredentials(svc, identity, link);
  identity.updated_at = new Date(svc.clock.now()).toISOString();
  svc.store.saveIdentity(identity);
  return 'linked';
}
