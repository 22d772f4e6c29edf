import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { useIdentities } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { openApiContract } from '../../support/openapi-contract.ts';
import { CANNY_COMPANY_ID, CANNY_PRIVATE_KEY, startProfileStack, type ProfileStack } from '../profile/profile-stack.ts';

// The Canny feedback board's single sign-on: /authentication/canny asks the backend for an SSO
// redirect for the signed-in user (the backend stand-in holds the Canny settings).

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const identities = useIdentities(() => env.identityAdminUrl);

describe('/authentication/canny', () => {
  test('needs a signed-in user', async () => {
    const answer = await new Browser(env.appUrl).get('/authentication/canny');
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(/^\/sign-in\?return_to=/);
  });

  test('redirects to Canny SSO with a token for this user, keeping the board page', async () => {
    const u = await identities.signedIn(env.appUrl, { prefix: 'canny', name: 'Ada Canny' });
    const board = 'https://feedback.canny.io/feature-requests';
    const before = env.tokenizerCalls();
    const answer = await u.browser.get(`/authentication/canny?redirect=${encodeURIComponent(board)}`);
    expect(answer.status).toBe(303);
    const target = new URL(answer.location!);
    expect(target.origin + target.pathname).toBe('https://canny.io/api/redirects/sso');
    expect(target.searchParams.get('companyID')).toBe(CANNY_COMPANY_ID);
    expect(target.searchParams.get('redirect')).toBe(board);
    const { payload } = await jwtVerify(target.searchParams.get('ssoToken')!, new TextEncoder().encode(CANNY_PRIVATE_KEY));
    expect(payload.email).toBe(u.email);
    // The spec clears the stored token first: a fresh one was minted for this call.
    expect(env.tokenizerCalls()).toBe(before + 1);

    const json = await u.browser.get('/authentication/canny', { accept: 'application/json' });
    expect(json.status).toBe(200);
    expect(JSON.parse(json.text).redirect_to).toMatch(/^https:\/\/canny\.io\/api\/redirects\/sso\?companyID=/);
  });

  test('a redirect off the board is refused with a translated page', async () => {
    const u = await identities.signedIn(env.appUrl, { prefix: 'canny-bad' });
    const answer = await u.browser.get(`/authentication/canny?redirect=${encodeURIComponent('https://evil.example/steal')}&lng=fr`);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Ce lien vers le tableau de suggestions n’est pas valide.');
    const json = await u.browser.get(`/authentication/canny?redirect=${encodeURIComponent('javascript:alert(1)')}`, { accept: 'application/json' });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'invalid_redirect' });
  });
});

describe('/authentication/canny in the OpenAPI document', () => {
  test('is documented, and its JSON answers (redirect and refused board address) match it', async () => {
    const contract = openApiContract((await (await fetch(`${env.appUrl}/swagger/openapi.json`)).json()) as never);
    expect(contract.has('get', '/authentication/canny')).toBe(true);
    const u = await identities.signedIn(env.appUrl, { prefix: 'canny-openapi' });
    const canny = await u.browser.get('/authentication/canny', { accept: 'application/json' });
    contract.response('get', '/authentication/canny', canny.status, JSON.parse(canny.text));
    const cannyBad = await u.browser.get('/authentication/canny?redirect=https%3A%2F%2Fevil.example', { accept: 'application/json' });
    contract.response('get', '/authentication/canny', cannyBad.status, JSON.parse(cannyBad.text));
  });
});

describe('/authentication/canny without Canny settings', () => {
  let bare: ProfileStack;
  beforeAll(async () => {
    bare = await startProfileStack({ backend: { cannyCompanyId: undefined, cannyPrivateKey: undefined } });
  });
  afterAll(() => bare?.close());
  const bareIdentities = useIdentities(() => bare.identityAdminUrl);

  test('answers 503 with a translated message, not a crash', async () => {
    const u = await bareIdentities.signedIn(bare.appUrl, { prefix: 'canny-off' });
    const answer = await u.browser.get('/authentication/canny');
    expect(answer.status).toBe(503);
    expect(answer.text).toContain('The feedback board is not available right now.');
  });
});
