// The `id_token` + `id_token_nonce` submit (Google One Tap, native Apple), as Kratos v1.3.1 answers it:
// google and apple only; the provider's keys, issuer and audience (client_id or an additional one);
// the nonce rules; no redirect (JSON 200 with the result, a form post 303); every refusal an internal
// error with Kratos's reason; a taken address gives the account-linking flow.
import { generateKeyPairSync } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeyOf } from '../../../../embedded/providers/keys.ts';
import { APP, Browser } from '../helpers.ts';
import { freshEmail, passwordIdentity, postJson, startFlow, startOidcStack, whoami, type OidcStack } from './support.ts';

const EXTRA_AUDIENCE = 'ios.example.accounts';
let s: OidcStack;
beforeAll(async () => {
  s = await startOidcStack({
    providers: (list) => list.map((p) => (p.id === 'google' ? { ...p, additional_id_token_audiences: [EXTRA_AUDIENCE] } : p)),
  });
});
afterAll(async () => {
  await s?.close();
});

/** An ID token as the provider signs it (or with another key of the same kid, to be refused). */
async function idToken(provider: 'google' | 'apple', claims: Record<string, unknown>, options: { audience?: string; forge?: boolean; issuer?: string } = {}) {
  const fake = s.fakes[provider];
  const real = await signingKeyOf(provider);
  const jwk: JWK = options.forge ? { ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK) } : real.privateJwk;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: real.privateJwk.kid })
    .setIssuer(options.issuer ?? fake.issuer)
    .setAudience(options.audience ?? fake.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(await importJWK(jwk, 'RS256'));
}

async function submit(kind: 'login' | 'registration', body: Record<string, unknown>, b = new Browser()) {
  const { id } = await startFlow(s, b, kind);
  return { b, id, r: await postJson(b, s.pub(`/self-service/${kind}?flow=${id}`), body) };
}

describe('google', () => {
  it('registers (200: session, identity, continue_with) and then signs in (200: session), without a redirect', async () => {
    const email = freshEmail('onetap');
    const credential = await idToken('google', { sub: `g-${email}`, email, email_verified: true, name: 'One Tap', nonce: 'n-1' });
    const reg = await submit('registration', { method: 'oidc', provider: 'google', id_token: credential, id_token_nonce: 'n-1' });
    expect(reg.r.status).toBe(200);
    expect(Object.keys(reg.r.data)).toEqual(['session', 'identity', 'continue_with']);
    expect(reg.r.data.identity.traits).toMatchObject({ email, name: 'One Tap', loginService: 'GOOGLE' });
    expect(reg.r.data.session.authentication_methods).toEqual([expect.objectContaining({ method: 'oidc', provider: 'google' })]);
    expect(reg.r.data.continue_with[0]).toEqual({ action: 'redirect_browser_to', redirect_browser_to: `${APP}/` });

    const login = await submit('login', { method: 'oidc', provider: 'google', id_token: credential, id_token_nonce: 'n-1' });
    expect(login.r.status).toBe(200);
    expect(Object.keys(login.r.data)).toEqual(['session', 'continue_with']);
    expect(login.r.data.session.identity.id).toBe(reg.r.data.identity.id);
    expect((await whoami(s, login.b)).status).toBe(200);
  });

  it('a One Tap credential of the fake Google, posted as a form: 303 to the return URL', async () => {
    const credential = await s.fakes.oneTapCredential('grace@example.com', { nonce: 'form-nonce' });
    const b = new Browser();
    const { id } = await startFlow(s, b, 'login');
    const r = await b.post(s.pub(`/self-service/login?flow=${id}`), { provider: 'google', id_token: credential, id_token_nonce: 'form-nonce' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${APP}/`);
    expect((await whoami(s, b)).data.identity.traits.email).toBe('grace@example.com');
  });

  it('an additional audience is accepted; another audience, another key or another issuer is refused', async () => {
    const email = freshEmail('aud');
    const ok = await submit('registration', {
      provider: 'google',
      id_token: await idToken('google', { sub: `a-${email}`, email }, { audience: EXTRA_AUDIENCE }),
    });
    expect(ok.r.status).toBe(200);
    const wrongAudience = await submit('login', { provider: 'google', id_token: await idToken('google', { sub: 'x', email }, { audience: 'someone-else' }) });
    expect(wrongAudience.r.status).toBe(500);
    expect(wrongAudience.r.data.error.reason).toBe('Could not verify id_token');
    expect(wrongAudience.r.data.error.message).toMatch(/^token audience didn't match allowed audiences: \[.* ios\.example\.accounts\]/);
    const forged = await submit('login', { provider: 'google', id_token: await idToken('google', { sub: 'x', email }, { forge: true }) });
    expect(forged.r.status).toBe(500);
    expect(forged.r.data.error).toMatchObject({
      reason: 'Could not verify id_token',
      message: 'failed to verify signature: failed to verify id token signature',
    });
    const issuer = await submit('login', {
      provider: 'google',
      id_token: await idToken('google', { sub: 'x', email }, { issuer: 'https://accounts.example' }),
    });
    expect(issuer.r.data.error.message).toMatch(/^oidc: id token issued by a different provider/);
  });

  it('nonce rules: none in the token is fine for Google; one in the token needs the same one submitted', async () => {
    const email = freshEmail('nonce');
    const noNonce = await submit('registration', { provider: 'google', id_token: await idToken('google', { sub: `n-${email}`, email }) });
    expect(noNonce.r.status).toBe(200);
    const token = await idToken('google', { sub: `n-${email}`, email, nonce: 'abc' });
    const missing = await submit('login', { provider: 'google', id_token: token });
    expect(missing.r.data.error).toMatchObject({ code: 500, reason: 'No nonce was provided but is required by the provider' });
    const mismatch = await submit('login', { provider: 'google', id_token: token, id_token_nonce: 'abd' });
    expect(mismatch.r.data.error.reason).toBe('The supplied nonce does not match the nonce from the id_token');
    // Plain string comparison: a hash of the nonce is not the nonce.
    const hashed = await submit('login', { provider: 'google', id_token: token, id_token_nonce: 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0' });
    expect(hashed.r.data.error.reason).toBe('The supplied nonce does not match the nonce from the id_token');
    expect((await submit('login', { provider: 'google', id_token: token, id_token_nonce: 'abc' })).r.status).toBe(200);
  });

  it('a browser form post that is refused goes to the error UI', async () => {
    const b = new Browser();
    const { id } = await startFlow(s, b, 'login');
    const r = await b.post(s.pub(`/self-service/login?flow=${id}`), { provider: 'google', id_token: 'not-a-jwt' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toMatch(new RegExp(`^${APP}/error\\?id=`));
  });

  it('a taken address: the account-linking login flow (200 for a JSON Accept), nothing registered', async () => {
    const email = freshEmail('taken');
    await passwordIdentity(s, email);
    const { r } = await submit('registration', { provider: 'google', id_token: await idToken('google', { sub: `t-${email}`, email, email_verified: true }) });
    expect(r.status).toBe(200);
    expect(r.data.ui.messages[0]).toMatchObject({ id: 1010016, context: { duplicate_identifier: email, provider: 'Google' } });
    expect(r.data.ui.nodes.some((n: any) => n.attributes.value === 'google')).toBe(false);
  });
});

describe('apple', () => {
  it('a token without nonce passes when it says nonce_supported (v1.3.1), and is refused without it', async () => {
    const email = freshEmail('apple-native');
    const supported = await idToken('apple', { sub: `ap-${email}`, email, email_verified: 'true', nonce_supported: true });
    const reg = await submit('registration', { provider: 'apple', id_token: supported, traits: { name: 'Native App' } });
    expect(reg.r.status).toBe(200);
    expect(reg.r.data.identity.traits).toMatchObject({ email, name: 'Native App', loginService: 'APPLE' });
    expect(reg.r.data.identity.verifiable_addresses[0].verified).toBe(true);
    const unsupported = await idToken('apple', { sub: `ap-${email}`, email });
    const refused = await submit('login', { provider: 'apple', id_token: unsupported });
    expect(refused.r.data.error.reason).toBe('No nonce was included in the id_token but is required by the provider');
  });
});

describe('other provider types', () => {
  it.each([
    ['dropbox', 'generic'],
    ['microsoft', 'microsoft'],
  ])('%s cannot verify an id_token', async (provider, type) => {
    const { r } = await submit('login', { provider, id_token: await idToken('google', { sub: 'x' }) });
    expect(r.status).toBe(500);
    expect(r.data.error.reason).toBe(`The provider ${type} does not support id_token verification`);
  });
});
