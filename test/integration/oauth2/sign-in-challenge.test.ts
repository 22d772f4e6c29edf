// Hydra's login challenge on our sign-in and sign-up pages (decision 130): it stays in the address through
// a refused password and the form's action, the sign-up link carries it, and the registration flow made
// there hands it to Kratos; return_to beside it does not take the browser away from Hydra.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, flowFormAction, flowIdOf, formAction, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { authorizeUrl, registerClient, signInOnPage, walk } from './support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ oauth2: true });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

const linkTo = (html: string, path: string) =>
  [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&')).find((href) => href.startsWith(`${path}?`));

describe('login challenge on the sign-in and sign-up pages', () => {
  test('kept through a wrong password; then the right one goes on to Hydra and the consent page', async () => {
    const client = await registerClient(stack);
    const person = await identities.create();
    const browser = new Browser(stack.appUrl);
    const page = await walk(browser, authorizeUrl(stack, client));
    const challenge = new URL(page.url).searchParams.get('login_challenge')!;
    const action = formAction(page.text, 'sign-in-form')!;
    expect(new URL(action, stack.appUrl).searchParams.get('login_challenge')).toBe(challenge);
    // Without JavaScript a sign-in whose consent is skipped ends at the client: the page allows its redirect origin.
    expect(page.headers.get('content-security-policy')).toMatch(/form-action [^;]*http:\/\/127\.0\.0\.1:9( |;|$)/);

    const refused = await browser.post(action, {
      csrf_token: hiddenValue(page.text, 'csrf_token')!,
      identifier: person.email,
      password: 'wrong-Password-123',
      method: 'password',
    });
    expect(refused.status).toBe(400);
    const again = formAction(refused.text, 'sign-in-form')!;
    expect(new URL(again, stack.appUrl).searchParams.get('login_challenge')).toBe(challenge);
    const consent = await signInOnPage(browser, stack.appUrl, { ...refused, url: new URL(again, stack.appUrl).href }, person.email, STRONG_PASSWORD);
    expect(new URL(consent.url).pathname).toBe('/consent');
  });

  test('the sign-up link carries it, and the registration flow made there has it at Kratos', async () => {
    const client = await registerClient(stack);
    const browser = new Browser(stack.appUrl);
    const page = await walk(browser, authorizeUrl(stack, client));
    const challenge = new URL(page.url).searchParams.get('login_challenge')!;
    const signUp = linkTo(page.text, '/sign-up');
    expect(new URL(signUp!, stack.appUrl).searchParams.get('login_challenge')).toBe(challenge);
    const created = await browser.get(signUp!);
    expect(created.status).toBe(200);
    const action = flowFormAction(created.text);
    const flowId = flowIdOf(action);
    expect(new URL(action, stack.appUrl).searchParams.get('login_challenge')).toBe(challenge);
    const flow = await browser.get(`${stack.identity.publicUrl}/self-service/registration/flows?id=${flowId}`, { accept: 'application/json' });
    expect(flow.status).toBe(200);
    expect((JSON.parse(flow.text) as { oauth2_login_challenge?: string }).oauth2_login_challenge).toBe(challenge);

    // Signed up there: on to verification first; the session Kratos answers with (no cookie for the browser)
    // lands nobody, so neither the tokenizer nor the backend is asked and nothing is logged as a failure.
    const email = uniqueEmail('challenge-sign-up');
    identities.track(email);
    const form = { csrf_token: hiddenValue(created.text, 'csrf_token')!, 'traits.email': email, 'traits.name': 'Ada', terms: 'on' };
    const profileStep = await browser.post(action, { ...form, method: 'profile' });
    const credentials = profileStep.status === 303 ? await browser.follow(profileStep.location!) : { ...profileStep, url: action };
    const done = await browser.post(flowFormAction(credentials.text), {
      ...form,
      csrf_token: hiddenValue(credentials.text, 'csrf_token')!,
      password: STRONG_PASSWORD,
      method: 'password',
    });
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/^\/sign-up\/verification\?flow=/);
    expect(stack.appLog().filter((line) => /authentication cookie not set|backend sign-up failed/.test(line))).toEqual([]);
  });

  test('a return_to beside the challenge does not take the sign-in away from Hydra', async () => {
    const client = await registerClient(stack);
    const person = await identities.create();
    const browser = new Browser(stack.appUrl);
    const page = await walk(browser, authorizeUrl(stack, client));
    const url = new URL(page.url);
    url.searchParams.set('return_to', `${stack.appUrl}/profile-settings`);
    const withReturnTo = await browser.follow(`${url.pathname}${url.search}`);
    const consent = await signInOnPage(browser, stack.appUrl, { ...withReturnTo, url: new URL(withReturnTo.url, stack.appUrl).href }, person.email);
    expect(new URL(consent.url).pathname).toBe('/consent');
  });

  test('a signed-in browser on /sign-up with a challenge Hydra cannot skip is sent to /sign-in to confirm, the challenge kept', async () => {
    const client = await registerClient(stack);
    const person = await identities.signedIn(stack.appUrl);
    const page = await walk(person.browser, authorizeUrl(stack, client));
    const challenge = new URL(page.url).searchParams.get('login_challenge')!;
    const signUp = await person.browser.get(`/sign-up?login_challenge=${encodeURIComponent(challenge)}`);
    expect(signUp.status).toBe(303);
    const to = new URL(signUp.location!, stack.appUrl);
    expect(to.pathname).toBe('/sign-in');
    expect(to.searchParams.get('login_challenge')).toBe(challenge);
  });
});
