// Key material of the embedded providers, made once per process: generating four RSA keys for every
// test stack would cost more than the rest of the stack's start. Nothing here is ever a real secret.
import { createHash, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { JWK } from 'jose';

const generate = promisify(generateKeyPair);

export interface SigningKey {
  /** The private JWK (with `kid`, `alg`, `use`) given to oidc-provider's `jwks` and used to sign One Tap credentials. */
  privateJwk: JWK & { kid: string };
  privateKey: KeyObject;
}

const signingKeys = new Map<string, Promise<SigningKey>>();

/** The RS256 key a provider signs its ID tokens with (Google, Microsoft, Dropbox and Apple all use RS256). */
export function signingKeyOf(providerId: string): Promise<SigningKey> {
  let key = signingKeys.get(providerId);
  if (!key) {
    key = generate('rsa', { modulusLength: 2048 }).then(({ privateKey }) => {
      const jwk = privateKey.export({ format: 'jwk' });
      const thumb = createHash('sha256').update(String(jwk.n)).digest('base64url').slice(0, 8);
      return { privateJwk: { ...jwk, kid: `${providerId}-${thumb}`, alg: 'RS256', use: 'sig' } as JWK & { kid: string }, privateKey };
    });
    signingKeys.set(providerId, key);
  }
  return key;
}

export interface AppleClientKey {
  /** The "Sign in with Apple" key a developer downloads (PKCS #8 PEM): the relying party signs its client secret with it. */
  privateKeyPem: string;
  /** What Apple keeps of it: the public half, which verifies that client secret. */
  publicKey: KeyObject;
}

let appleKey: Promise<AppleClientKey> | undefined;

export function appleClientKey(): Promise<AppleClientKey> {
  appleKey ??= generate('ec', { namedCurve: 'P-256' }).then(({ privateKey, publicKey }) => ({
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey,
  }));
  return appleKey;
}
