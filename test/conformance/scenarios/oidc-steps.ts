// Building blocks of the OIDC scenarios: the embedded upstream providers (embedded/providers) shared by
// both services of a file, configured into each (the stand-in with the providers' own types, real
// Kratos with every one generic: scripts/ory/kratos-oidc.ts), and the steps of a social sign-in as a
// browser takes them. What happens at the provider (its choose-account page) is not recorded: both
// services send the browser to the same fake, and only what the identity service answers is compared.
import type { Answer, Client } from '../client.ts';
import type { Fixture, ScenarioContext } from '../harness.ts';
import type { ScenarioConfig } from '../targets.ts';
import { startFakeProviders, type FakeProviders, type ProviderId } from '../../../embedded/providers/index.ts';
import { identityProviderConfig } from '../../../embedded/providers/identity-config.ts';
import { signInAtProvider } from '../../support/providers.ts';
import { asFlow, createFlow, getFlow, uniqueEmail, type Flow, type FlowKind } from './steps.ts';

let fakes: FakeProviders | undefined;

/** The running fakes of this file. */
export function upstream(): FakeProviders {
  if (!fakes) throw new Error('the OIDC scenarios need the upstream providers fixture (oidcFixture)');
  return fakes;
}

/** The fixture of an OIDC conformance file: the fakes, their configuration, each service's callback trusted. */
export async function oidcFixture(): Promise<Fixture> {
  fakes = await startFakeProviders();
  const running = fakes;
  const config = { selfservice: { methods: { oidc: identityProviderConfig(running) } } } as ScenarioConfig;
  return {
    config,
    pairStarted(pair) {
      running.trustRelyingParty(pair.standIn.publicUrl);
      running.trustRelyingParty(pair.kratos.publicUrl);
    },
    async close() {
      await running.close();
      fakes = undefined;
    },
  };
}

/**
 * A new account at `provider` (each run its own address, which the normaliser hides), verified unless
 * told otherwise; its address. The name is fixed: what the provider sends must not differ between the runs.
 */
export function providerAccount(provider: ProviderId, options: { emailVerified?: boolean; name?: string; email?: string } = {}): string {
  const email = options.email ?? uniqueEmail(`oidc-${provider}`);
  upstream().addAccount(provider, { email, name: options.name ?? 'Grace Hopper', emailVerified: options.emailVerified });
  return email;
}

type Submit = Record<string, unknown>;
type Recorded = { record?: boolean };

/**
 * Submits the flow's form with method=oidc and `provider` (JSON as the app's SDK does, or a browser's form
 * post) and returns Kratos's answer and the provider's authorize URL it points the browser to.
 */
export async function submitOidc(
  client: Client,
  flow: Flow,
  fields: Submit,
  variant: 'json' | 'form' = 'json',
  options: Recorded = {},
): Promise<{ answer: Answer; authorizeUrl?: string }> {
  const csrf = flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token');
  const body = { ...(csrf ? { csrf_token: String(csrf.attributes.value ?? '') } : {}), ...fields };
  const answer =
    variant === 'json'
      ? await client.postJson(flow.ui.action, body, options)
      : await client.postForm(
          flow.ui.action,
          Object.entries(body).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)] as [string, string]),
          options,
        );
  const fromJson = (answer.body as { redirect_browser_to?: string } | undefined)?.redirect_browser_to;
  const authorizeUrl = answer.status === 422 ? fromJson : answer.status === 303 ? answer.location : undefined;
  return { answer, authorizeUrl };
}

/** The provider's answer, as the browser brings it back to the service's callback: a navigation, or Apple's form post. Recorded. */
export function returnToCallback(
  client: Client,
  back: { method: 'GET' | 'POST'; url: string; form?: Record<string, string> },
  options: Recorded = {},
): Promise<Answer> {
  if (back.method === 'POST') return client.postForm(back.url, back.form ?? {}, options);
  return client.get(back.url, { variant: 'browser', ...options });
}

/**
 * Chooses the account at the provider (or cancels) and comes back to the callback. Apple's form post is
 * answered with a 302 to the same callback as a GET (the stand-in's apple type asks for form_post; real
 * Kratos's generic does not), which the browser follows: both end with the GET's answer.
 */
export async function atProvider(
  client: Client,
  authorizeUrl: string | undefined,
  choice: { email: string } | { cancel: true },
  options: Recorded = {},
): Promise<Answer> {
  if (!authorizeUrl) throw new Error('the service did not send the browser to the provider');
  const back = await signInAtProvider(authorizeUrl, choice);
  if (back.method === 'GET') return returnToCallback(client, back, options);
  const posted = await returnToCallback(client, back, { record: false });
  if (posted.status !== 302 || !posted.location) return posted;
  return client.get(posted.location, { variant: 'browser', ...options });
}

/** The whole social sign-in from a new flow of `kind`, as a browser with JS (JSON submit); returns the callback's answer. */
export async function socialSignIn(
  ctx: ScenarioContext,
  client: Client,
  kind: Extract<FlowKind, 'login' | 'registration'>,
  provider: ProviderId,
  email: string,
  options: { record?: boolean; query?: string } = {},
): Promise<Answer> {
  const recorded = { record: options.record };
  const flow = await createFlow(ctx, client, kind, options.query ?? '', recorded);
  const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider }, 'json', recorded);
  return atProvider(client, authorizeUrl, { email }, recorded);
}

/** The flow a callback redirected the browser to (its UI URL's ?flow=), read as the app's page would. */
export async function flowAfterRedirect(ctx: ScenarioContext, client: Client, answer: Answer, kind: FlowKind): Promise<Flow> {
  const id = answer.location ? new URL(answer.location).searchParams.get('flow') : null;
  if (!id) throw new Error(`expected a redirect to the ${kind} UI with a flow, got ${answer.status} ${answer.location ?? answer.text.slice(0, 200)}`);
  return asFlow(await getFlow(ctx, client, kind, id));
}

/**
 * The identity of a provider account, through the admin API: looked up by its e-mail (the normaliser hides
 * it; the subject it does not), which Kratos's schema extension makes an identifier of every identity.
 */
export const identityByEmail = (ctx: ScenarioContext, email: string) =>
  ctx.admin.getJson(ctx.adm(`/admin/identities?credentials_identifier=${encodeURIComponent(email)}&include_credential=oidc`));

/** The query of a URL: what a scenario takes from the provider's authorize URL (its state). */
export const queryOf = (url: string | undefined, name: string): string => new URL(url ?? 'http://x/').searchParams.get(name) ?? '';
