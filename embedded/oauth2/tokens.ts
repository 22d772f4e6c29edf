// Tokens as Hydra's default (opaque, HMAC) strategy shapes them — `ory_ac_`, `ory_at_`, `ory_rt_` then
// `<random>.<signature>` — and stored by the hash of their value; the RS256 key of ID tokens; ID tokens.
import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Context, SigningKey } from './context.ts';
import type { OAuth2Store } from './store.ts';

export type TokenKind = 'ac' | 'at' | 'rt';

export type TokenRecord = {
  kind: TokenKind;
  /** The grant: the authorization flow whose consent issued it (consent revocation and code reuse revoke by it). */
  flowId: string;
  clientId: string;
  subject: string;
  scope: string[];
  audience: string[];
  issuedAt: number;
  expiresAt: number;
  active: boolean;
  /** Codes: already exchanged. */
  used?: boolean;
  redirectUri?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  nonce?: string;
  /** session.access_token of the consent (introspection's `ext`). */
  ext: Record<string, unknown>;
};

export function newOpaqueToken(kind: TokenKind, secret: Buffer): string {
  const key = randomBytes(32).toString('base64url');
  return `ory_${kind}_${key}.${createHmac('sha256', secret).update(key).digest('base64url')}`;
}

/** The storage id of a token value, or undefined when its signature is not ours. */
export function tokenId(value: string, secret: Buffer): { id: string; kind: TokenKind } | undefined {
  const match = /^ory_(ac|at|rt)_([\w-]+)\.([\w-]+)$/.exec(value);
  if (!match) return undefined;
  const expected = createHmac('sha256', secret).update(match[2]!).digest();
  const given = Buffer.from(match[3]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { id: createHash('sha256').update(value).digest('base64url'), kind: match[1] as TokenKind };
}

/** Issues and stores a token; records outlive their expiry a little so reuse is told apart from garbage. */
export function issueToken(
  ctx: Context,
  record: Omit<TokenRecord, 'issuedAt' | 'expiresAt' | 'active'>,
  lifespanMs: number,
): { value: string; record: TokenRecord } {
  const now = ctx.clock.now();
  const value = newOpaqueToken(record.kind, ctx.secret);
  const full: TokenRecord = { ...record, issuedAt: now, expiresAt: now + lifespanMs, active: true };
  ctx.store.put('token', tokenId(value, ctx.secret)!.id, full, {
    subject: full.subject,
    clientId: full.clientId,
    ref: full.flowId,
    expiresAt: full.expiresAt + TOKEN_RETENTION_MS,
  });
  return { value, record: full };
}

const TOKEN_RETENTION_MS = 24 * 60 * 60_000;

export function findToken(ctx: Context, value: string): { id: string; record: TokenRecord } | undefined {
  const parsed = tokenId(value, ctx.secret);
  const record = parsed && ctx.store.get<TokenRecord>('token', parsed.id);
  return parsed && record ? { id: parsed.id, record } : undefined;
}

export function saveToken(ctx: Context, id: string, record: TokenRecord): void {
  ctx.store.put('token', id, record, {
    subject: record.subject,
    clientId: record.clientId,
    ref: record.flowId,
    expiresAt: record.expiresAt + TOKEN_RETENTION_MS,
  });
}

export const isLive = (ctx: Context, record: TokenRecord) => record.active && record.expiresAt > ctx.clock.now();

/** Deactivates every token of a grant (code reuse, consent revocation, refresh token revocation). */
export function revokeGrant(ctx: Context, flowId: string, kinds: TokenKind[] = ['ac', 'at', 'rt']): void {
  for (const row of ctx.store.findWithIds<TokenRecord>('token', { ref: flowId })) {
    if (kinds.includes(row.data.kind) && row.data.active) saveToken(ctx, row.id, { ...row.data, active: false });
  }
}

/**
 * A signing key made once and kept in the database: `id-token` (Hydra's `hydra.openid.id-token` set)
 * signs ID tokens; `access-token` (`hydra.jwt.access-token`) is only published, as real Hydra's JWKS
 * lists both.
 */
export function loadSigningKey(store: OAuth2Store, set: 'id-token' | 'access-token' = 'id-token'): SigningKey {
  let stored = store.get<{ kid: string; pkcs8: string }>('key', set);
  if (!stored) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    stored = { kid: randomUUID(), pkcs8: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    store.put('key', set, stored);
  }
  const privateKey = createPrivateKey(stored.pkcs8);
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, unknown>;
  return { kid: stored.kid, privateKey, publicJwk: { use: 'sig', kty: 'RSA', kid: stored.kid, alg: 'RS256', n: jwk.n, e: jwk.e } };
}

export function loadSecret(store: OAuth2Store): Buffer {
  let secret = store.get<string>('key', 'hmac');
  if (!secret) {
    secret = randomBytes(32).toString('base64url');
    store.put('key', 'hmac', secret);
  }
  return Buffer.from(secret, 'base64url');
}

/** OIDC's at_hash: the left half of the SHA-256 of the access token, base64url. */
export const atHash = (accessToken: string) => createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');

export async function signIdToken(ctx: Context, claims: Record<string, unknown>): Promise<string> {
  // Go marshals claim maps with sorted keys: the same order here keeps the two payloads comparable.
  const sorted = Object.fromEntries(Object.entries(claims).sort(([a], [b]) => (a < b ? -1 : 1)));
  return new SignJWT(sorted).setProtectedHeader({ alg: 'RS256', kid: ctx.key.kid, typ: 'JWT' }).sign(ctx.key.privateKey);
}
