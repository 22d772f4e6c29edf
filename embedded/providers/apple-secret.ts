// Apple's client secret is an ES256 JWT the relying party signs with its "Sign in with Apple" key
// (iss = team id, sub = client id, aud = https://appleid.apple.com, kid = key id, at most six months
// long). oidc-provider compares client secrets as strings, so the token endpoint is preceded by this
// check: a valid JWT is swapped for the registered secret, anything else is left as it came and
// oidc-provider refuses it (`invalid_client`).
import type { IncomingMessage } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { Clock } from '../clock.ts';
import { readForm, replaceBody } from './http.ts';
import { APPLE_AUDIENCE } from './profiles.ts';

const SIX_MONTHS_S = 15_777_000;

export interface AppleSecretCheck {
  teamId: string;
  keyId: string;
  clientId: string;
  publicKey: KeyObject;
  registeredSecret: string;
  /**
   * Also take the registered secret itself. Real Kratos can only be pointed at this fake as a `generic`
   * provider, which sends a static secret; the stand-in uses Kratos's `apple` type and signs a JWT.
   */
  acceptStaticSecret: boolean;
  clock: Clock;
}

/** Whether `secret` is a client secret JWT Apple would take for this client. */
export async function verifyAppleClientSecret(secret: string, check: AppleSecretCheck): Promise<boolean> {
  try {
    if (decodeProtectedHeader(secret).kid !== check.keyId) return false;
    const { payload } = await jwtVerify(secret, check.publicKey, {
      algorithms: ['ES256'],
      issuer: check.teamId,
      subject: check.clientId,
      audience: APPLE_AUDIENCE,
      requiredClaims: ['iat', 'exp'],
      currentDate: new Date(check.clock.now()),
    });
    return payload.exp! - payload.iat! <= SIX_MONTHS_S;
  } catch {
    return false;
  }
}

/** Reads the token request's form and rewrites its `client_secret` as described above. */
export async function swapAppleClientSecret(req: IncomingMessage, check: AppleSecretCheck): Promise<void> {
  const form = await readForm(req);
  const secret = form.get('client_secret');
  if (secret !== null && !(check.acceptStaticSecret && secret === check.registeredSecret)) {
    const valid = await verifyAppleClientSecret(secret, check);
    // An invalid JWT must never pass as the registered secret: replace it with something that cannot match.
    form.set('client_secret', valid ? check.registeredSecret : `rejected:${secret.length}`);
  }
  replaceBody(req, form.toString());
}
