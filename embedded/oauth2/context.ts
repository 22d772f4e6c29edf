// What every handler of the stand-in shares: storage, time, its own URLs, the UI URLs and the keys.
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { OAuth2Store } from './store.ts';

export type UiUrls = { login: string; consent: string; logout: string; error: string; postLogout: string; registration?: string };

export type SigningKey = { kid: string; privateKey: KeyObject; publicJwk: Record<string, unknown> };

export interface Context {
  store: OAuth2Store;
  clock: Clock;
  /** Hydra's urls.self.issuer: the public URL with a trailing slash, as scripts/ory/hydra.ts configures real Hydra. */
  issuer: string;
  publicUrl: string;
  adminUrl: string;
  urls: UiUrls;
  /** HMAC secret of the opaque tokens' signatures (kept in the database). */
  secret: Buffer;
  key: SigningKey;
  /** The public keys /.well-known/jwks.json lists. */
  publishedKeys: Record<string, unknown>[];
  identityProviderAdminUrl?: string;
  revokeClientTokens(clientId: string): void;
}

/** Hydra's lifespans (defaults of v2.3.0). */
export const TTL = {
  loginConsentRequestMs: 30 * 60_000,
  authCodeMs: 10 * 60_000,
  accessTokenMs: 60 * 60_000,
  idTokenMs: 60 * 60_000,
  refreshTokenMs: 720 * 60 * 60_000,
  authenticationSessionMs: 720 * 60 * 60_000,
};
