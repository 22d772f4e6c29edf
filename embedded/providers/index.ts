// The embedded upstream identity providers: Google, Microsoft, Dropbox and Apple as real OpenID
// Providers on this machine, for `npm start` and the tests (never for production, never imported by
// the app). startFakeProviders() starts all four; see README.md here for ports, issuers and accounts.
import { systemClock, type Clock } from '../clock.ts';
import { PROVIDER_IDS, type NewAccount, type ProviderAccount, type ProviderId } from './accounts.ts';
import { startFake, type FakeProvider, type RunningFake } from './fake.ts';
import { appleClientKey } from './keys.ts';
import type { CredentialOptions } from './one-tap.ts';

export type { FakeProvider, ProviderId, ProviderAccount, NewAccount, CredentialOptions };
export { PROVIDER_IDS };
export { LOCAL_PORTS, PROFILES } from './profiles.ts';
export { GSI_CLIENT_PATH } from './one-tap.ts';

/** The callback paths of Kratos's OIDC method (contract §1.2): per provider, and the one `pkce: force` uses. */
export const KRATOS_CALLBACK_PATH = '/self-service/methods/oidc/callback';

export interface StartFakeProvidersOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Host name in the issuers' URLs, as browsers and the identity service reach them (default: `host`). */
  publicHost?: string;
  /** Port per provider; 0 (the default) picks a free one. `npm start` uses LOCAL_PORTS. */
  ports?: Partial<Record<ProviderId, number>>;
  /**
   * Time of what these modules sign and check themselves: One Tap credentials and Apple's client secret
   * JWT. oidc-provider reads Date directly, so codes, ID tokens and sessions keep real time.
   */
  clock?: Clock;
  apple?: {
    /**
     * Also accept the registered client secret as it is, besides an ES256 client secret JWT (Apple takes
     * only the JWT). For a relying party that can only send a fixed secret, such as real Kratos with this
     * fake as a `generic` provider (scripts/ory/kratos-oidc.ts signs a long-lived JWT instead). Default: false.
     */
    acceptStaticSecret?: boolean;
    /**
     * Refuse an authorization that asks for `name` or `email` without `response_mode=form_post`, as Apple
     * does. Off by default: real Kratos's `generic` type cannot ask for form_post. Default: false.
     */
    requireFormPost?: boolean;
  };
}

export interface FakeProviders extends Record<ProviderId, FakeProvider> {
  /** Accepts `<identityPublicUrl>/self-service/methods/oidc/callback/<id>` (and the generic `/callback`) at every provider. */
  trustRelyingParty(identityPublicUrl: string): void;
  addAccount(id: ProviderId, account: NewAccount): ProviderAccount;
  listAccounts(id: ProviderId): ProviderAccount[];
  /** The query of the last authorization request `id` received (what the relying party sent upstream), if any. */
  lastAuthorizationRequest(id: ProviderId): Record<string, string> | undefined;
  /** A One Tap credential from the fake Google for one of its accounts (audience: its client id unless given). */
  oneTapCredential(email: string, options?: CredentialOptions): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeProviders(options: StartFakeProvidersOptions = {}): Promise<FakeProviders> {
  const host = options.host ?? '127.0.0.1';
  const publicHost = options.publicHost ?? (host === '0.0.0.0' || host === '::' ? 'localhost' : host);
  const clock = options.clock ?? systemClock;
  const appleKey = await appleClientKey();
  const started: RunningFake[] = [];
  try {
    for (const id of PROVIDER_IDS) {
      started.push(
        await startFake(id, {
          host,
          publicHost,
          port: options.ports?.[id] ?? 0,
          clock,
          ...(id === 'apple'
            ? {
                apple: {
                  ...appleKey,
                  acceptStaticSecret: options.apple?.acceptStaticSecret ?? false,
                  requireFormPost: options.apple?.requireFormPost ?? false,
                },
              }
            : {}),
        }),
      );
    }
  } catch (error) {
    await Promise.all(started.map((fake) => fake.close()));
    throw error;
  }
  const fakes = Object.fromEntries(started.map((fake) => [fake.info.id, fake])) as Record<ProviderId, RunningFake>;

  return {
    google: fakes.google.info,
    microsoft: fakes.microsoft.info,
    dropbox: fakes.dropbox.info,
    apple: fakes.apple.info,
    trustRelyingParty(identityPublicUrl) {
      const base = identityPublicUrl.replace(/\/+$/, '');
      for (const fake of started) {
        fake.allowRedirectUri(`${base}${KRATOS_CALLBACK_PATH}/${fake.info.id}`);
        fake.allowRedirectUri(`${base}${KRATOS_CALLBACK_PATH}`);
      }
    },
    addAccount: (id, account) => fakes[id].accounts.add(account),
    listAccounts: (id) => fakes[id].accounts.list(),
    lastAuthorizationRequest: (id) => fakes[id].authorizationRequests.at(-1),
    oneTapCredential: (email, credentialOptions) => fakes.google.oneTapCredential(email, credentialOptions),
    async close() {
      await Promise.all(started.map((fake) => fake.close()));
    },
  };
}
