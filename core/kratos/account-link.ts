/**
 * The account-link process of spec §4 (states 0–6) read from a Kratos login flow, as a pure function.
 *
 * Kratos v1.3.1 turns a social sign-up whose e-mail already belongs to an account into an account-linking
 * login flow (contract §1.4): message 1010016 (context: the duplicate identifier, the new provider's label,
 * the existing account's credential types and providers), the `identifier` node hidden with that e-mail,
 * the password button relabelled 1010017 "Sign in and link", other providers' buttons 1010018 "Confirm
 * with {provider}". Signing in there links the new provider; signing in as another identity fails with
 * 4010009. After any failure Kratos re-renders the same flow with its messages replaced, so 1010016 is gone
 * but the relabelled buttons and the hidden identifier stay: they are what marks the flow as a link flow
 * (v1.3.1 labels its password button 1010022, which it does not relabel; a refresh flow hides the
 * identifier too, but says `refresh`).
 *
 *   accountLinkOf(flow, signals?) → { state, step, email?, provider?, existing, failure? }
 *
 *   INITIAL                 not a link flow (an ordinary sign-in)
 *   PROMPT_SELECT_ACCOUNT   a link flow: choose how to sign in to the existing account (a wrong password
 *                           stays here, its message under the form)
 *   LINKING_ACCOUNT         the user chose an existing provider and is on the way to it (`submitting`)
 *   WRONG_ACCOUNT_SELECTED  4010009: the account signed in to is not the one with this e-mail
 *   FAILED                  the confirming provider sign-in failed (provider error, lost state…)
 *   SUCCESS                 linked (`linked`: the sign-in succeeded and linked the provider)
 *   CANCELLED               the user cancelled, here (`cancelled`) or at the provider (access_denied)
 */
import { knownProvider, PASSWORD_METHOD, socialFailureOfMessage, type SocialFailure } from './social.ts';
import type { KratosFlow, UiNode, UiText } from './types.ts';

/** Spec §4 order: the index is the state's number. */
export const ACCOUNT_LINK_STATES = ['INITIAL', 'PROMPT_SELECT_ACCOUNT', 'LINKING_ACCOUNT', 'WRONG_ACCOUNT_SELECTED', 'FAILED', 'SUCCESS', 'CANCELLED'] as const;

export type AccountLinkState = (typeof ACCOUNT_LINK_STATES)[number];

export const LINK_PROMPT_MESSAGE_ID = 1010016;
export const SIGN_IN_AND_LINK_LABEL_ID = 1010017;
export const CONFIRM_WITH_LABEL_ID = 1010018;
export const LINKED_CREDENTIALS_MISMATCH_ID = 4010009;

/** What the page and the JSON answer say about the link, beyond the state. */
export type AccountLink = {
  state: AccountLinkState;
  /** The spec's number for the state (0–6). */
  step: number;
  /** The e-mail both accounts share (the duplicate identifier). */
  email?: string;
  /** The provider being linked: its id when known, else the label Kratos gave. */
  provider?: string;
  /** How the existing account signs in: `password` and/or provider ids, as far as Kratos tells. */
  existing: string[];
  /** Why a FAILED or CANCELLED state came about, when a provider sign-in failed. */
  failure?: SocialFailure;
};

export type AccountLinkSignals = {
  /** The user left the link sequence with our Cancel link. */
  cancelled?: boolean;
  /** The sign-in that confirmed the link succeeded. */
  linked?: boolean;
  /** The user just chose an existing provider on a link flow and is being sent there. */
  submitting?: boolean;
  /**
   * What is known beyond the flow: the provider an earlier page of the sequence named (1010016 is gone
   * after a failure), how the existing account signs in (read by the server; Kratos v1.3.1 leaves 1010016's
   * available_credential_types empty).
   */
  remembered?: { provider?: string; existing?: readonly string[] };
};

function labelId(node: UiNode): number | undefined {
  return node.meta.label?.id ?? node.attributes.label?.id;
}

function hiddenIdentifier(flow: Pick<KratosFlow, 'ui'>): UiNode | undefined {
  return flow.ui.nodes.find((node) => node.attributes.name === 'identifier' && node.attributes.type === 'hidden');
}

function promptOf(flow: Pick<KratosFlow, 'ui'> | undefined): UiText | undefined {
  return flow?.ui.messages?.find((message) => message.id === LINK_PROMPT_MESSAGE_ID);
}

/** A Kratos account-linking login flow: the 1010016 prompt, the buttons Kratos relabelled, or the identifier it hid. */
export function isLinkFlow(flow: Pick<KratosFlow, 'ui' | 'refresh'> | undefined): boolean {
  if (!flow) return false;
  if (promptOf(flow)) return true;
  if (!flow.refresh && hiddenIdentifier(flow)) return true;
  return flow.ui.nodes.some((node) => {
    const id = labelId(node);
    return id === SIGN_IN_AND_LINK_LABEL_ID || id === CONFIRM_WITH_LABEL_ID;
  });
}

function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '');
  return typeof value === 'string' && value !== '' ? [value] : [];
}

/** How the existing account signs in: from 1010016's context, else from the buttons on offer. */
function existingMethods(flow: Pick<KratosFlow, 'ui'>, prompt: UiText | undefined, remembered: readonly string[] | undefined): string[] {
  const types = stringList(prompt?.context?.available_credential_types);
  if (types.length > 0) {
    const providers = stringList(prompt?.context?.available_providers);
    return [...(types.includes(PASSWORD_METHOD) ? [PASSWORD_METHOD] : []), ...providers];
  }
  if (remembered && remembered.length > 0) return [...remembered];
  const methods: string[] = [];
  for (const node of flow.ui.nodes) {
    const id = labelId(node);
    const passwordButton = id === SIGN_IN_AND_LINK_LABEL_ID || (node.attributes.name === 'method' && node.attributes.value === PASSWORD_METHOD);
    if (passwordButton && !methods.includes(PASSWORD_METHOD)) methods.unshift(PASSWORD_METHOD);
    if (id === CONFIRM_WITH_LABEL_ID && typeof node.attributes.value === 'string') methods.push(node.attributes.value);
  }
  return methods;
}

function duplicateEmail(flow: Pick<KratosFlow, 'ui'>, prompt: UiText | undefined): string | undefined {
  const fromPrompt = prompt?.context?.duplicate_identifier ?? prompt?.context?.duplicateIdentifier;
  if (typeof fromPrompt === 'string' && fromPrompt !== '') return fromPrompt;
  const value = hiddenIdentifier(flow)?.attributes.value;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function errorsOf(flow: Pick<KratosFlow, 'ui'>): UiText[] {
  const all = [...(flow.ui.messages ?? []), ...flow.ui.nodes.flatMap((node) => node.messages)];
  return all.filter((message) => message.type === 'error');
}

function withStep(link: Omit<AccountLink, 'step'>): AccountLink {
  return { ...link, step: ACCOUNT_LINK_STATES.indexOf(link.state) };
}

export function accountLinkOf(flow: Pick<KratosFlow, 'ui' | 'refresh'> | undefined, signals: AccountLinkSignals = {}): AccountLink {
  const remembered = signals.remembered ?? {};
  const rememberedProvider = knownProvider(remembered.provider) ?? remembered.provider;
  if (signals.linked) return withStep({ state: 'SUCCESS', provider: rememberedProvider, existing: [...(remembered.existing ?? [])] });
  if (!flow || !isLinkFlow(flow)) {
    if (signals.cancelled) return withStep({ state: 'CANCELLED', provider: rememberedProvider, existing: [...(remembered.existing ?? [])] });
    return withStep({ state: 'INITIAL', existing: [] });
  }
  const prompt = promptOf(flow);
  const label = prompt?.context?.provider;
  const provider = knownProvider(label) ?? (typeof label === 'string' && label !== '' ? label : undefined) ?? rememberedProvider;
  const base = { email: duplicateEmail(flow, prompt), provider, existing: existingMethods(flow, prompt, remembered.existing) };
  if (signals.cancelled) return withStep({ ...base, state: 'CANCELLED' });
  const errors = errorsOf(flow);
  if (errors.some((message) => message.id === LINKED_CREDENTIALS_MISMATCH_ID)) return withStep({ ...base, state: 'WRONG_ACCOUNT_SELECTED' });
  const failure = errors.map(socialFailureOfMessage).find((found) => found !== undefined);
  if (failure === 'cancelled') return withStep({ ...base, state: 'CANCELLED', failure });
  if (failure) return withStep({ ...base, state: 'FAILED', failure });
  if (signals.submitting) return withStep({ ...base, state: 'LINKING_ACCOUNT' });
  return withStep({ ...base, state: 'PROMPT_SELECT_ACCOUNT' });
}
