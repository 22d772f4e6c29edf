// The `state` sent upstream (Kratos's state.go): the flow id, the provider id, the PKCE verifier and a
// session-token-exchange hash, encrypted so that only this service can read it. Kratos marshals a
// protobuf and encrypts it with its cipher (AES-GCM with `aes`), hex-encoded; the stand-in encrypts JSON
// with AES-256-GCM under a key derived from its cookie secret, hex-encoded the same way. Opaque to all.
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Service } from '../service.ts';

export interface OidcState {
  flowId: string;
  providerId: string;
  /** Empty when PKCE is not used for this round trip. */
  pkceVerifier: string;
  /** Random, as in Kratos when no session-token exchange code exists (native flows only). */
  exchangeHash: string;
}

function key(svc: Service): Buffer {
  return createHash('sha256').update('oidc-state\0').update(svc.cookieSecret).digest();
}

export function newState(flowId: string, providerId: string, pkceVerifier: string): OidcState {
  return { flowId, providerId, pkceVerifier, exchangeHash: randomUUID() };
}

/** nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes), hex: cryptopasta's layout. */
export function encryptState(svc: Service, state: OidcState): string {
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key(svc), nonce);
  const body = Buffer.concat([c.update(JSON.stringify(state), 'utf8'), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]).toString('hex');
}

/** The state, or undefined when it was not made here (or was changed on the way). */
export function decryptState(svc: Service, hex: string): OidcState | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  const raw = Buffer.from(hex, 'hex');
  if (raw.length < 12 + 16 + 2) return undefined;
  try {
    const d = createDecipheriv('aes-256-gcm', key(svc), raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(raw.length - 16));
    const plain = Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
    const s = JSON.parse(plain) as Partial<OidcState>;
    if (typeof s.flowId !== 'string' || typeof s.providerId !== 'string') return undefined;
    return { flowId: s.flowId, providerId: s.providerId, pkceVerifier: s.pkceVerifier ?? '', exchangeHash: s.exchangeHash ?? '' };
  } catch {
    return undefined;
  }
}
