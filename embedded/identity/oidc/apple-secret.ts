// Apple's client secret (provider_apple.go newClientSecret): an ES256 JWT signed with the team's private
// key (PKCS#8 PEM), made for each token request: iss = team id, sub = client id, aud = Apple, kid = key
// id, valid for five minutes.
import { importPKCS8, SignJWT } from 'jose';
import type { OidcProvider } from '../config.ts';
import { KratosError } from '../errors.ts';
import type { Service } from '../service.ts';

export const APPLE_AUDIENCE = 'https://appleid.apple.com';

export async function appleClientSecret(svc: Service, p: OidcProvider): Promise<string> {
  const pem = p.apple_private_key ?? '';
  if (!/-----BEGIN PRIVATE KEY-----/.test(pem)) {
    // A plain Go error in Kratos: an internal error whose message is the error's text.
    throw new KratosError(500, { message: 'failed to decode PEM block containing private key' });
  }
  let key: CryptoKey;
  try {
    key = await importPKCS8(pem, 'ES256');
  } catch (e) {
    throw new KratosError(500, { message: `Private key decoding failed: ${(e as Error).message}` });
  }
  const now = Math.floor(svc.clock.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: p.apple_private_key_id ?? '', typ: 'JWT' })
    .setIssuer(p.apple_team_id ?? '')
    .setSubject(p.client_id ?? '')
    .setAudience([APPLE_AUDIENCE])
    .setIssuedAt(now)
    .setExpirationTime(now + 5 * 60)
    .sign(key);
}
