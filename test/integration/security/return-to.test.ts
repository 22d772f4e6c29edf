// return_to through the real stack: a handful of representative values per entry point proves that each
// one is wired to the allow-list check. The exhaustive list of tricks (1,100+ cases) is the unit test's
// (test/unit/security/return-to.test.ts, over test/unit/security/return-to-cases.ts).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { useIdentities } from '../../support/fixtures.ts';
import { barAddress, flowFormAction } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
const EXTRA_ALLOWED = 'https://docs.example.com/app';
const json = { Accept: 'application/json' };

beforeAll(async () => {
  configureRateLimits({ 'sign-in': { perIp: 100_000, perEmail: 100_000 } });
  stack = await startStack({ env: { ALLOWED_RETURN_URLS: EXTRA_ALLOWED } });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** One of each family of trick: protocol-relative, backslash, scheme, userinfo, look-alike host and prefix, control character, encoded slashes. */
const hostile = () => {
  const ours = new URL(stack.appUrl).host;
  return [
    '//evil.example',
    '/\\evil.example/path',
    'https://evil.example/',
    'javascript:alert(1)',
    `https://${ours}@evil.example`,
    `http://${ours}.evil.example/`,
    'https://docs.example.com/application',
    '\t//evil.example',
    '%2F%2Fevil.example',
  ];
};

/** A redirect target is fine when it stays on the app or inside the extra allow-listed prefix. */
function expectAllowed(location: string | undefined, returnTo: string): void {
  expect(location, `no Location for ${returnTo}`).toBeTruthy();
  const url = new URL(location!, stack.appUrl);
  const app = new URL(stack.appUrl);
  const extra = new URL(EXTRA_ALLOWED);
  const onApp = url.origin === app.origin && url.username === '' && url.password === '';
  const onExtra = url.origin === extra.origin && (url.pathname === extra.pathname || url.pathname.startsWith(`${extra.pathname}/`));
  expect(onApp || onExtra, `${JSON.stringify(returnTo)} → ${location}`).toBe(true);
  // Relative answers must not be protocol-relative or backslash tricks a browser would send elsewhere.
  if (!/^https?:/i.test(location!)) expect(location!).toMatch(/^\/(?![/\\])/);
}

async function signedInAgent() {
  const { email, password } = await identities.create({ prefix: 'return-to' });
  const agent = request.agent(stack.appUrl);
  const page = await agent.get('/sign-in').set(json).expect(200);
  const csrf = page.body.flow.ui.nodes.find((n: { attributes: { name?: string } }) => n.attributes.name === 'csrf_token').attributes.value;
  await agent.post(`/sign-in?flow=${page.body.flow.id}`).set(json).send({ csrf_token: csrf, identifier: email, password }).expect(200);
  return agent;
}

const GUEST_PAGES = ['/sign-in', '/sign-up', '/forgot-password'];

describe('return_to is checked at every entry point', () => {
  it.each(GUEST_PAGES)('a guest GET of %s never sends the browser off the app: the form and the address bar stay on it', async (path) => {
    const agent = request.agent(stack.appUrl);
    for (const returnTo of hostile()) {
      const res = await agent.get(path).query({ return_to: returnTo });
      expect(res.status, `${path} ${returnTo}`).toBe(200);
      expect(res.headers.location).toBeUndefined();
      expectAllowed(flowFormAction(res.text), returnTo);
      expectAllowed(barAddress(res.text), returnTo);
    }
  });

  it('signed in, the guest-only pages send the user on to an allowed return_to, and to / instead of a hostile one', async () => {
    const agent = await signedInAgent();
    for (const path of GUEST_PAGES) {
      for (const returnTo of hostile()) {
        const res = await agent.get(path).query({ return_to: returnTo }).expect(303);
        expect(res.headers.location, `${path} ${returnTo}`).toBe('/');
      }
      expect(
        (
          await agent
            .get(path)
            .query({ return_to: `${EXTRA_ALLOWED}/doc/1` })
            .expect(303)
        ).headers.location,
      ).toBe(`${EXTRA_ALLOWED}/doc/1`);
      expect((await agent.get(path).query({ return_to: '/profile-settings' }).expect(303)).headers.location).toBe(`${stack.appUrl}/profile-settings`);
    }
  });

  it('a successful sign-in (form and JSON) with a hostile return_to lands on the app; an allowed one is followed', async () => {
    const { email, password } = await identities.create({ prefix: 'return-to-sign-in' });
    const signInWith = async (returnTo: string, mode: 'form' | 'json') => {
      const agent = request.agent(stack.appUrl);
      const page = await agent.get('/sign-in').query({ return_to: returnTo }).set(json).expect(200);
      const csrf = page.body.flow.ui.nodes.find((n: { attributes: { name?: string } }) => n.attributes.name === 'csrf_token').attributes.value;
      const post = agent.post(`/sign-in?${new URLSearchParams({ flow: page.body.flow.id, return_to: returnTo })}`);
      const body = { csrf_token: csrf, identifier: email, password };
      if (mode === 'json') {
        const done = await post.set(json).send(body).expect(200);
        return done.body.redirect_to as string;
      }
      const done = await post.type('form').send(body).expect(303);
      return done.headers.location as string;
    };
    for (const returnTo of hostile()) {
      expectAllowed(await signInWith(returnTo, 'form'), returnTo);
      expectAllowed(await signInWith(returnTo, 'json'), returnTo);
    }
    expect(await signInWith(`${EXTRA_ALLOWED}/doc/2`, 'form')).toBe(`${EXTRA_ALLOWED}/doc/2`);
    expect(await signInWith('/profile-settings', 'json')).toBe(`${stack.appUrl}/profile-settings`);
  });
});
