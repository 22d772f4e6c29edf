// The embedded OAuth2 provider: a stand-in for Ory Hydra (public and admin API) built on oidc-provider,
// for `npm start` and the tests (never for production, never imported by the app).
// INTERFACE ONLY until the stand-in lands (issue #13): the signature below is what the stack and
// scripts build against.
import type { Clock } from '../clock.ts';

export type OAuth2UiUrls = {
  /** Hydra's urls.login: the login UI, given `?login_challenge=`. */
  login: string;
  /** urls.consent: `?consent_challenge=`. */
  consent: string;
  /** urls.logout: `?logout_challenge=`. */
  logout: string;
  /** urls.error: `?error=&error_description=`. */
  error: string;
  /** urls.post_logout_redirect: where an OP-initiated logout ends. */
  postLogout: string;
  /** urls.registration (prompt=registration); default: login. */
  registration?: string;
};

export type StartOAuth2ProviderOptions = {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Host name in the issuer and the URLs it hands out (default: `host`). */
  publicHost?: string;
  /** 0 (default) picks a free port. `npm start`: 4444 and 4445, as Hydra's defaults. */
  publicPort?: number;
  adminPort?: number;
  /** SQLite file, or ':memory:' (default). */
  database?: string;
  urls: OAuth2UiUrls;
  /** Kratos's admin URL: an accepted logout then ends the Kratos session too (Hydra's urls.identity_provider.url). */
  identityProviderAdminUrl?: string;
  clock?: Clock;
};

export type OAuth2Provider = { publicUrl: string; adminUrl: string; issuer: string; close(): Promise<void> };

export async function startOAuth2Provider(options: StartOAuth2ProviderOptions): Promise<OAuth2Provider> {
  void options;
  throw new Error('the embedded OAuth2 provider is not built yet (issue #13)');
}
