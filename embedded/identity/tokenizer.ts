// Session tokenizer (§12.3, docs/architecture.md): whoami?tokenize_as=<template> returns an ES256 JWT
// signed with a persisted key; the public keys are served at /.well-known/jwks.json.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { durationMs, type TokenizerTemplate } from './config.ts';
import { KratosError } from './errors.ts';
import type { Clock } from '../clock.ts';
import type { Store } from './store.ts';

interface KeyEntry {
  kid: string;
  alg: string;
  jwk: JWK;
}

export class Tokenizer {
  private keys: KeyEntry[] = [];
  private templates: Record<string, TokenizerTemplate>;
  private issuer: string;
  private clock: Clock;

  constructor(templates: Record<string, TokenizerTemplate>, issuer: string, clock: Clock) {
    this.templates = templates;
    this.issuer = issuer;
    this.clock = clock;
  }

  async init(store: Store): Promise<void> {
    const stored = store.getKv('tokenizer_jwks');
    if (stored) {
      this.keys = JSON.parse(stored) as KeyEntry[];
    } else {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const jwk = await exportJWK(privateKey);
      const kid = randomUUID();
      this.keys = [{ kid, alg: 'ES256', jwk: { ...jwk, kid, alg: 'ES256', use: 'sig' } }];
      store.setKv('tokenizer_jwks', JSON.stringify(this.keys));
    }
  }

  private keyFor(t: TokenizerTemplate): KeyEntry {
    if (t.jwks_url) {
      let text: string;
      if (t.jwks_url.startsWith('file://')) text = readFileSync(new URL(t.jwks_url), 'utf8');
      else if (t.jwks_url.startsWith('base64://')) text = Buffer.from(t.jwks_url.slice(9), 'base64').toString('utf8');
      else throw new KratosError(500, { reason: 'Unable to load the tokenizer JSON Web Key Set: only file:// and base64:// are supported.' });
      const first = (JSON.parse(text) as { keys: JWK[] }).keys[0];
      if (!first) throw new KratosError(400, { reason: 'The JSON Web Key Set of the tokenizer template is empty.' });
      if (!first.alg) throw new KratosError(400, { reason: 'The JSON Web Key of the tokenizer template does not specify an algorithm.' });
      return { kid: first.kid ?? '', alg: first.alg, jwk: first };
    }
    return this.keys[0]!;
  }

  jwks(): { keys: JWK[] } {
    return {
      keys: this.keys.map(({ jwk }) => {
        const { d: _d, ...pub } = jwk;
        return pub;
      }),
    };
  }

  async tokenize(template: string, claims: { sub: string; sid: string; email?: unknown; externalId?: string }): Promise<string> {
    const t = Object.hasOwn(this.templates, template) ? this.templates[template] : undefined;
    if (!t) throw new KratosError(400, { reason: `Unable to find tokenizer template "${template}".` });
    const key = this.keyFor(t);
    const ttl = durationMs(t.ttl ?? '1m', 60_000);
    // Explicit iat/nbf/exp: jose would otherwise read the real time, not the service's clock.
    const nowMs = this.clock.now();
    const now = Math.floor(nowMs / 1000);
    const sub = t.subject_source === 'external_id' && claims.externalId ? claims.externalId : claims.sub;
    const payload: Record<string, unknown> = { ...(t.claims ?? {}) };
    if (typeof claims.email === 'string') payload.email = claims.email;
    payload.sid = claims.sid;
    const privateKey = await importJWK(key.jwk, key.alg);
    return new SignJWT(payload)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setJti(randomUUID())
      .setIssuer(this.issuer)
      .setSubject(sub)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(Math.floor((nowMs + ttl) / 1000))
      .sign(privateKey);
  }
}
