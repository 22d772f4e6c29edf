// The provider buttons of sign-in and sign-up and the spec §2 query parameters, against the identity
// service (stand-in or real Kratos) configured with the embedded Google, Microsoft, Dropbox and Apple:
// JavaScript off (form post → 303 to the provider with Kratos's continuity cookie), the form island
// (200 + X-Redirect-To, a full navigation) and JSON (422 browser_location_change_required).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalogueText } from '../../support/browser.ts';
import { ERROR_CODES } from '../../../core/errors.ts';
import { alerts, Browser, formAction, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { navigate, openForm, pressProvider, PROVIDERS, USER_NAVIGATION } from './social-support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ socialProviders: true });
});
afterAll(() => stack?.close());

const fake = (id: (typeof PROVIDERS)[number]) => stack.providers![id];
const continuity = (setCookies: string[]) => setCookies.find((line) => line.startsWith('ory_kratos_continuity='));
const NAVIGATION = USER_NAVIGATION;

describe('provider buttons', () => {
  test('sign-in and sign-up show one button per configured provider, each with its mark and our label', async () => {
    for (const path of ['/sign-in', '/sign-up'] as const) {
      const { page } = await openForm(new Browser(stack.appUrl), path, '?lng=fr');
      expect(page.status).toBe(200);
      for (const id of PROVIDERS) {
        const button = new RegExp(`<button[^>]*data-provider="${id}"[^>]*>.*?</button>`).exec(page.text)?.[0] ?? '';
        expect(button, `${path} ${id}`).toContain(`btn--social-${id}`);
        expect(button).toContain(`data-mark="${id}"`);
        expect(button).toContain(catalogueText('fr', 'authPage.continueWith', { provider: catalogueText('fr', `authPage.providers.${id}`) }));
      }
    }
  });

  test('the CSP lets our forms go to exactly the configured providers, and shows their pictures', async () => {
    const { page } = await openForm(new Browser(stack.appUrl), '/sign-in');
    const csp = page.headers.get('content-security-policy') ?? '';
    const directive = (name: string) => csp.split(';').find((part) => part.trim().startsWith(`${name} `)) ?? '';
    for (const id of PROVIDERS) {
      expect(directive('form-action')).toContain(fake(id).origin);
      expect(directive('img-src')).toContain(fake(id).origin);
    }
    expect(directive('form-action')).not.toContain('accounts.google.com');
  });

  test.each(PROVIDERS)('JavaScript off, %s: a form post answers 303 to the provider with Kratos’s continuity cookie relayed (no Domain)', async (id) => {
    for (const path of ['/sign-in', '/sign-up'] as const) {
      const answer = await pressProvider(new Browser(stack.appUrl), path, id);
      expect(answer.status, `${path}: ${answer.text.slice(0, 300)}`).toBe(303);
      const to = new URL(answer.location!);
      expect(to.origin).toBe(fake(id).origin);
      expect(to.searchParams.get('client_id')).toBe(fake(id).clientId);
      expect(to.searchParams.get('redirect_uri')).toContain(`/self-service/methods/oidc/callback/${id}`);
      expect(to.searchParams.get('state')).toBeTruthy();
      const cookie = continuity(answer.setCookies);
      expect(cookie, path).toBeDefined();
      expect(cookie).not.toMatch(/domain=/i);
    }
  });

  test('the form island: 200 with X-Redirect-To (the island navigates there); JSON: 422 browser_location_change_required', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openForm(browser, '/sign-in');
    const enhanced = await browser.request('POST', action, { form: { csrf_token: csrf, provider: 'microsoft' }, headers: { 'x-enhance': '1' } });
    expect(enhanced.status).toBe(200);
    expect(new URL(enhanced.headers.get('x-redirect-to')!).origin).toBe(fake('microsoft').origin);
    expect(continuity(enhanced.setCookies)).toBeDefined();

    const api = new Browser(stack.appUrl);
    const json = await api.get('/sign-in', { accept: 'application/json' });
    const flow = JSON.parse(json.text).flow as { ui: { action: string; nodes: { attributes: { name: string; value: string } }[] } };
    const token = flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')!.attributes.value;
    const answer = await api.postJson(flow.ui.action, { csrf_token: token, provider: 'dropbox' });
    expect(answer.status).toBe(422);
    const body = JSON.parse(answer.text) as { code: string; meta: { redirect_browser_to: string } };
    expect(body.code).toBe('browser_location_change_required');
    expect(new URL(body.meta.redirect_browser_to).origin).toBe(fake('dropbox').origin);
    expect(continuity(answer.setCookies)).toBeDefined();
  });

  test('sign-up asks for the terms before going to a provider, as for a password sign-up', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openForm(browser, '/sign-up');
    const refused = await browser.post(action, { csrf_token: csrf, provider: 'google' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(catalogueText('en', 'validation.termsRequired'));
    expect(continuity(refused.setCookies)).toBeUndefined();
  });

  test('sign-in says what continuing with a provider means for the terms', async () => {
    const { page } = await openForm(new Browser(stack.appUrl), '/sign-in');
    expect(page.text).toContain(
      catalogueText('en', 'social.termsNotice', { terms: catalogueText('en', 'authPage.termsOfUse'), privacy: catalogueText('en', 'authPage.privacyPolicy') }),
    );
  });

  test('an unknown provider: 404 and our translated message on the form, never a "form no longer available"', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openForm(browser, '/sign-in', '?lng=pt');
    const answer = await browser.post(action, { csrf_token: csrf, provider: 'github' });
    expect(answer.status).toBe(404);
    expect(alerts(answer.text)).toContain(catalogueText('pt', 'social.error.unknownProvider'));
    expect(answer.text).not.toContain(catalogueText('pt', 'flowError.restartedMissing'));
    expect(formAction(answer.text, 'sign-in-form')).toMatch(/flow=/);
  });

  test('an unknown provider posted as JSON: 404 that says so, with the flow to go on with, on sign-in and sign-up', async () => {
    for (const path of ['/sign-in', '/sign-up'] as const) {
      const browser = new Browser(stack.appUrl);
      const { action, csrf } = await openForm(browser, path, '?lng=pt');
      const answer = await browser.postJson(action, { csrf_token: csrf, provider: 'yahoo', ...(path === '/sign-up' ? { terms: true } : {}) });
      expect(answer.status).toBe(404);
      const body = JSON.parse(answer.text) as { code: string; message: string; flow?: { id: string } };
      expect(body.code).not.toBe(ERROR_CODES.flowMissing);
      expect(body.message).toBe(catalogueText('pt', 'social.error.unknownProvider'));
      expect(body.flow?.id).toBeTruthy();
    }
  });
});

describe('spec §2 query parameters', () => {
  test('social_sign_in_enabled=false hides the buttons, on the first page and after the hop to the flow', async () => {
    for (const path of ['/sign-in', '/sign-up'] as const) {
      const { page } = await openForm(new Browser(stack.appUrl), path, '?social_sign_in_enabled=false');
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('data-provider=');
      // The class itself is in the inline stylesheet (decision 195): the element is what must be gone.
      expect(page.text).not.toMatch(/class="[^"]*flow-form__divider/);
      expect(formAction(page.text, path === '/sign-in' ? 'sign-in-form' : 'sign-up-form')).toContain('social_sign_in_enabled=false');
    }
  });

  test('loginHint reaches Google as login_hint (and only Google)', async () => {
    const google = await pressProvider(new Browser(stack.appUrl), '/sign-in', 'google', '?loginHint=ada%40example.com');
    expect(new URL(google.location!).searchParams.get('login_hint')).toBe('ada@example.com');
    const microsoft = await pressProvider(new Browser(stack.appUrl), '/sign-in', 'microsoft', '?loginHint=ada%40example.com');
    expect(new URL(microsoft.location!).searchParams.has('login_hint')).toBe(false);
  });

  test('request_social_sign_in + provider: a navigation the user made goes to the provider at once, login_hint and the continuity cookie included', async () => {
    const browser = new Browser(stack.appUrl);
    const answer = await navigate(
      browser,
      '/sign-in?request_social_sign_in=true&provider=google&loginHint=grace%40example.com&return_to=%2Fprofile-settings',
      NAVIGATION,
    );
    expect(answer.status).toBe(303);
    const to = new URL(answer.location!);
    expect(to.origin).toBe(fake('google').origin);
    expect(to.searchParams.get('login_hint')).toBe('grace@example.com');
    expect(continuity(answer.setCookies)).toBeDefined();
  });

  test('request_social_sign_in without a user navigation (an image, a frame, a script): the page with that provider’s button only, no provider yet', async () => {
    for (const headers of [{}, { ...NAVIGATION, 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors' }, { ...NAVIGATION, 'sec-fetch-user': '?0' }]) {
      const browser = new Browser(stack.appUrl);
      const first = await navigate(browser, '/sign-in?request_social_sign_in=true&provider=apple', headers);
      expect(first.status).toBe(303);
      expect(new URL(first.location!, stack.appUrl).origin).toBe(stack.appUrl);
      expect(continuity(first.setCookies)).toBeUndefined();
      const page = await browser.follow(first.location!);
      expect(page.status).toBe(200);
      expect(page.text).toContain('data-provider="apple"');
      expect(page.text).not.toContain('data-provider="google"');
      expect(page.text).toContain(catalogueText('en', 'social.startText', { provider: 'Apple' }));
      // The one button is a normal provider button: pressing it goes on.
      const pressed = await browser.post(formAction(page.text, 'sign-in-form')!, { csrf_token: hiddenValue(page.text, 'csrf_token')!, provider: 'apple' });
      expect(pressed.status).toBe(303);
      expect(new URL(pressed.location!).origin).toBe(fake('apple').origin);
    }
  });

  test('request_social_sign_in with an unknown provider: the sign-in page with our message and a 4xx', async () => {
    const browser = new Browser(stack.appUrl);
    const first = await navigate(browser, '/sign-in?request_social_sign_in=true&provider=github', NAVIGATION);
    expect(first.status).toBe(303);
    const page = await browser.follow(first.location!);
    expect(page.status).toBe(400);
    expect(alerts(page.text)).toContain(catalogueText('en', 'social.error.unknownProvider'));
  });
});
