// Recovery and verification with Kratos configured for the link method (spec §5 "force the method to
// link"): the forms ask for the email, Kratos mails a link to itself, the browser opens it and Kratos
// sends it back to our screens (verification) or to the settings ui_url (recovery).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { courierMessages, useIdentities } from '../../support/fixtures.ts';
import { flowFormAction, csrfFrom, flowIdOf, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;

beforeAll(async () => {
  configureRateLimits({ recovery: { perIp: 10_000, perEmail: 10_000 }, resend: { perIp: 10_000, perEmail: 10_000 } });
  configureUniformTiming(0);
  stack = await startStack({
    identityConfig: { selfservice: { flows: { recovery: { use: 'link' }, verification: { use: 'link' } } } } as never,
  });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

type Agent = ReturnType<typeof request.agent>;

type Jar = { getCookies(o: object): { toValueString(): string }[]; setCookies(cookies: string[], domain: string, path: string): void };
const jarOf = (agent: Agent) => (agent as unknown as { jar: Jar }).jar;

function cookiesOf(agent: Agent): string {
  return jarOf(agent)
    .getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false })
    .map((cookie) => cookie.toValueString())
    .join('; ');
}

async function latestLink(email: string, kind: 'recovery' | 'verification'): Promise<string> {
  const mails = (await courierMessages(stack.identity.adminUrl, email)).filter((mail) => mail.template_type === `${kind}_valid`);
  const link = /(https?:\/\/\S+token=[A-Za-z0-9]+)/.exec(mails.at(-1)?.body ?? '')?.[1];
  if (!link) throw new Error(`no ${kind} link for ${email}`);
  return link;
}

/** Opens a Kratos link as the agent's browser would (same host, same cookies); returns where it goes. */
async function openKratosLink(agent: Agent, link: string): Promise<{ location: URL; setCookie: string[] }> {
  const res = await fetch(link, { redirect: 'manual', headers: { cookie: cookiesOf(agent) } });
  expect(res.status).toBe(303);
  // Kratos and the app share the host (cookies ignore ports): the browser keeps what Kratos set.
  jarOf(agent).setCookies(res.headers.getSetCookie(), '127.0.0.1', '/');
  return { location: new URL(res.headers.get('location')!), setCookie: res.headers.getSetCookie() };
}

describe('link method', () => {
  it('recovery: asks for the email, says a link was sent, and the link leads to the settings ui_url signed in', async () => {
    const email = 'link.recovery@example.com';
    await identities.create({ email: email, password: 'Link-Recovery-Phrase-1', name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const page = await agent.get('/forgot-password').expect(200);
    const start = flowFormAction(page.text);
    expect(page.text).toContain('value="link"');
    expect(visibleText(page.text)).toContain('Send recovery link');
    const sent = await agent
      .post(start)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), method: 'link', email })
      .expect(303);
    const after = await agent.get(sent.headers.location!).expect(200);
    expect(visibleText(after.text)).toContain('we’ve sent it a recovery link');

    const link = await latestLink(email, 'recovery');
    expect(link.startsWith(stack.identity.publicUrl)).toBe(true);
    // Landing on our page with the link's parameters hands them to Kratos.
    const url = new URL(link);
    const ours = await agent.get(`/forgot-password?${url.searchParams}`).expect(303);
    expect(ours.headers.location).toBe(link);
    const { location, setCookie } = await openKratosLink(agent, link);
    expect(location.pathname).toBe('/profile-settings');
    expect(setCookie.some((cookie) => cookie.startsWith('ory_kratos_session='))).toBe(true);
  });

  it('verification: the emailed link verifies and comes back to our success screen', async () => {
    const email = 'link.verify@example.com';
    await identities.create({ email: email, password: 'Link-Verify-Phrase-1', name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const form = await agent.get('/sign-up/resend-verification-email').expect(200);
    const start = flowFormAction(form.text);
    const sent = await agent
      .post(start)
      .type('form')
      .send({ csrf_token: csrfFrom(form.text), method: 'link', email })
      .expect(303);
    const waiting = await agent.get(sent.headers.location!).expect(200);
    expect(visibleText(waiting.text)).toContain('We’ve sent you a verification link.');

    const { location } = await openKratosLink(agent, await latestLink(email, 'verification'));
    expect(location.pathname).toBe('/sign-up/verification');
    expect(flowIdOf(location.href)).toBe(flowIdOf(sent.headers.location));
    const done = await agent.get(`${location.pathname}${location.search}`).expect(200);
    expect(visibleText(done.text)).toContain('Your email address has been verified.');
  });

  it('verification: a used link that comes back shows already_verified (4070001) with a way to sign in', async () => {
    const email = 'link.reused@example.com';
    await identities.create({ email: email, password: 'Link-Verify-Phrase-2', name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const form = await agent.get('/sign-up/resend-verification-email').expect(200);
    const start = flowFormAction(form.text);
    await agent
      .post(start)
      .type('form')
      .send({ csrf_token: csrfFrom(form.text), method: 'link', email })
      .expect(303);
    const link = await latestLink(email, 'verification');
    const used = await openKratosLink(agent, link);
    expect(visibleText((await agent.get(`${used.location.pathname}${used.location.search}`).expect(200)).text)).toContain(
      'Your email address has been verified.',
    );

    // The same link again, through our page (which hands its parameters to Kratos): its token is used up,
    // so Kratos comes back with a new flow that says so.
    const ours = await agent.get(`/verify-account?${new URL(link).searchParams}`).expect(303);
    expect(ours.headers.location).toBe(link);
    const { location } = await openKratosLink(agent, link);
    expect(location.pathname).toBe('/sign-up/verification');
    expect(flowIdOf(location.href)).not.toBe(flowIdOf(used.location.href));
    const page = await agent.get(`${location.pathname}${location.search}&lng=vi`).expect(200);
    expect(visibleText(page.text)).toContain('Tài khoản này đã được xác minh');
    expect(page.text).toContain('data-message-id="4070001"');
    // The link keeps the language chosen in the address.
    expect(page.text).toMatch(/<a class="alert__link" href="\/sign-in\?lng=vi"/);
  });
});
