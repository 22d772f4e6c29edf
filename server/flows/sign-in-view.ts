/**
 * What the sign-in screen shows of a login flow, beyond the form itself (server/routes/sign-in.ts):
 *
 *   prepareSignIn(flow, screen)   the provider buttons: none with `social_sign_in_enabled=false`, only the
 *                                 asked one with `social_provider` (a start that was not a user navigation)
 *   signInFlowStatus(flow, screen) GET status: 400 when Kratos wrote a failure into the flow (a callback
 *                                 that failed, an expired flow, a wrong account) or `social_error` says one
 *   oneHopParams(query)           markers of the page a new flow is shown on (logout, a social start or its
 *                                 failure, a cancelled account link): kept in the address it puts in the bar
 *   signInExtras(screen, state)   the account-link sequence, the form's action (carrying what the next page
 *                                 must remember), the messages the sequence already explains left out, the
 *                                 social failure of `social_error`, and return_to read back from the flow
 */
import { LINK_PROMPT_MESSAGE_ID, LINKED_CREDENTIALS_MISMATCH_ID, type AccountLink } from '../../core/kratos/account-link.ts';
import { isProviderButton, knownProvider, SOCIAL_FAILURE_KEYS } from '../../core/kratos/social.ts';
import type { KratosFlow, UiText } from '../../core/kratos/types.ts';
import { ROUTES } from '../../core/routes.ts';
import { accountLinkOfScreen, linkQuery, onlyExistingMethods } from './account-link.ts';
import type { ScreenRequest, ScreenState } from './flow-screen.ts';
import { withParams } from './query.ts';
import { kratosReturnTo, returnToOfFlow, socialErrorOf, socialSignInShown, withoutSocialButtons } from './social.ts';
import type { CreateFlowParams } from './kratos.ts';

/** `social_provider`: the provider a start asked for, when the flow offers it. */
export function askedProvider(flow: KratosFlow, screen: ScreenRequest): string | undefined {
  const asked = screen.req.query.social_provider;
  if (typeof asked !== 'string') return undefined;
  return flow.ui.nodes.some((node) => isProviderButton(node) && node.attributes.value === asked) ? asked : undefined;
}

export function prepareSignIn(flow: KratosFlow, screen: ScreenRequest): KratosFlow {
  if (!socialSignInShown(screen.req.query)) return withoutSocialButtons(flow);
  const asked = askedProvider(flow, screen);
  if (!asked) return flow;
  return { ...flow, ui: { ...flow.ui, nodes: flow.ui.nodes.filter((node) => !isProviderButton(node) || node.attributes.value === asked) } };
}

function hasError(flow: KratosFlow): boolean {
  const messages = [...(flow.ui.messages ?? []), ...flow.ui.nodes.flatMap((node) => node.messages)];
  return messages.some((message) => message.type === 'error');
}

export function signInFlowStatus(flow: KratosFlow, screen: ScreenRequest): number {
  return hasError(flow) || socialErrorOf(screen.req.query) ? 400 : 200;
}

/** Messages the account-link panel says in its own words. */
const EXPLAINED_BY_PANEL: ReadonlySet<number> = new Set([LINK_PROMPT_MESSAGE_ID, LINKED_CREDENTIALS_MISMATCH_ID]);

export type SignInExtras = {
  link: AccountLink;
  action: string;
  /** The form's nodes: on the link sequence, only the ways in the existing account has. */
  ui: KratosFlow['ui'];
  messages: UiText[] | undefined;
  formErrors: string[];
  returnTo?: string;
  /** The provider of a start that needs the user's click (`social_provider`). */
  askedProvider?: string;
  cancelHref: string;
};

export async function signInExtras(screen: ScreenRequest, state: ScreenState): Promise<SignInExtras> {
  const { req, query, config, t } = screen;
  const link = await accountLinkOfScreen(req, state.flow);
  const linking = link.state !== 'INITIAL';
  // A failed callback comes back as `/sign-in?flow=` alone: our return_to is still in the flow's.
  const recovered = query.returnTo ? undefined : returnToOfFlow(state.flow, config);
  const extra: Record<string, string | undefined> = {
    flow: state.flow.id,
    ...(recovered ? { return_to: recovered } : {}),
    ...(linking ? linkQuery(link) : {}),
  };
  const failure = socialErrorOf(req.query);
  const messages = linking ? state.form.ui.messages?.filter((message) => !EXPLAINED_BY_PANEL.has(message.id)) : state.form.ui.messages;
  return {
    link,
    action: withParams(screen.path, query.kept, extra),
    ui: linking ? onlyExistingMethods({ ...state.flow, ui: state.form.ui }, link).ui : state.form.ui,
    messages,
    formErrors: [...(failure ? [t(SOCIAL_FAILURE_KEYS[failure])] : []), ...state.form.formErrors],
    returnTo: query.returnTo ?? recovered,
    askedProvider: askedProvider(state.flow, screen),
    // A fresh sign-in (no flow, no link parameters): nothing is linked.
    cancelHref: screen.link(ROUTES.signIn, { account_link: 'cancelled', ...(recovered ? { return_to: recovered } : {}) }),
  };
}

/** The provider a start names, for the page's notice. */
export function askedProviderName(screen: ScreenRequest, provider: string): string {
  const known = knownProvider(provider);
  return known ? screen.t(`authPage.providers.${known}`) : provider;
}

export const ONE_HOP_PARAMS = ['logged_out', 'social_provider', 'social_error', 'account_link'] as const;

export function oneHopParams(query: Record<string, unknown>): Record<string, string | undefined> {
  return Object.fromEntries(
    ONE_HOP_PARAMS.map((name) => [name, typeof query[name] === 'string' && /^[\w-]{1,64}$/.test(query[name]) ? query[name] : undefined]),
  );
}

export function stringQuery(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A new login flow: refresh when asked, our return_to kept in our own page, and Hydra's login challenge (decision 130). */
export function signInFlowParams(screen: ScreenRequest): CreateFlowParams {
  const { query, config } = screen;
  return { refresh: query.refresh, returnTo: kratosReturnTo(config, ROUTES.signIn, query.returnTo), loginChallenge: query.loginChallenge };
}
