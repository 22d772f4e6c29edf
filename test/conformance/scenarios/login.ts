// Login (contract §6): right, wrong and unverified (the product's require_verified_address hook), as
// the app's SDK calls (JSON) and as a browser posting Kratos's form; already signed in; refresh;
// an inactive identity; unknown flows.
import type { Scenario } from '../harness.ts';
import { createFlow, getFlow, navigateToFlow, newIdentity, signIn, signedInBrowser, STRONG_PASSWORD, submitForm, submitJson, uniqueEmail } from './steps.ts';

export const loginScenarios: Scenario[] = [
  {
    name: 'login (JSON): right password gives a session, then whoami',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login');
      await getFlow(ctx, client, 'login', flow.id);
      await submitJson(client, flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'login (browser form): right password redirects to the return URL with a session cookie',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'login', `?return_to=${encodeURIComponent(`${ctx.target.appUrl}/after`)}`);
      await submitForm(client, flow, { identifier: identity.email, password: STRONG_PASSWORD, method: 'password' });
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'login (JSON): wrong password and unknown identifier give 4000006',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login');
      await submitJson(client, flow, { method: 'password', identifier: identity.email, password: 'Wrong-Password-123456' });
      await submitJson(client, flow, { method: 'password', identifier: uniqueEmail('nobody'), password: STRONG_PASSWORD });
      await getFlow(ctx, client, 'login', flow.id);
    },
  },
  {
    name: 'login (browser form): wrong password goes back to the login UI with the same flow',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'login');
      await submitForm(client, flow, { identifier: identity.email, password: 'Wrong-Password-123456', method: 'password' });
      await getFlow(ctx, client, 'login', flow.id);
    },
  },
  {
    name: 'login (form): blank identifier and password give 4000002 on each node',
    async run(ctx) {
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'login');
      await submitForm(client, flow, { identifier: '', password: '', method: 'password' });
      await getFlow(ctx, client, 'login', flow.id);
      const again = await createFlow(ctx, client, 'login');
      await submitJson(client, again, { method: 'password', identifier: '', password: '' });
    },
  },
  {
    name: 'login (JSON and form): an unverified address is refused by require_verified_address (4000010)',
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login');
      await submitJson(client, flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      const browser = ctx.browser();
      const formFlow = await navigateToFlow(ctx, browser, 'login');
      await submitForm(browser, formFlow, { identifier: identity.email, password: STRONG_PASSWORD, method: 'password' });
      await getFlow(ctx, browser, 'login', formFlow.id);
      await browser.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'login: an inactive identity gets 4010011',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      await ctx.admin.request('PATCH', ctx.adm(`/admin/identities/${identity.id}`), {
        json: [{ op: 'replace', path: '/state', value: 'inactive' }],
        record: false,
      });
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login');
      await submitJson(client, flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
    },
  },
  {
    name: 'login: already signed in (create JSON and browser, submit JSON and form)',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      await client.getJson(ctx.pub('/self-service/login/browser'));
      await client.get(ctx.pub('/self-service/login/browser'), { variant: 'browser' });
      // A flow made before signing in, submitted while signed in.
      const other = ctx.browser();
      const early = await createFlow(ctx, other, 'login');
      await signIn(ctx, other, identity.email);
      await submitJson(other, early, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      await submitForm(other, early, { identifier: identity.email, password: STRONG_PASSWORD, method: 'password' });
    },
  },
  {
    name: 'login: refresh=true with a session gives the re-authentication flow, and signing in again',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'login', '?refresh=true');
      await submitJson(client, flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      const anonymous = ctx.browser();
      await createFlow(ctx, anonymous, 'login', '?refresh=true');
    },
  },
  {
    name: 'login: unknown, malformed and missing flow ids',
    async run(ctx) {
      const client = ctx.browser();
      await createFlow(ctx, client, 'login');
      await getFlow(ctx, client, 'login', '6a3f9a34-5a4e-4c9f-8d7e-1f2a3b4c5d6e');
      await getFlow(ctx, client, 'login', 'not-a-uuid');
      await client.postJson(ctx.pub('/self-service/login'), { method: 'password', identifier: 'x@example.com', password: 'x' });
      await client.postJson(ctx.pub('/self-service/login?flow=6a3f9a34-5a4e-4c9f-8d7e-1f2a3b4c5d6e'), { method: 'password', identifier: 'x', password: 'x' });
    },
  },
  {
    name: 'login: a disallowed return_to is refused (JSON 400, browser to the error UI)',
    async run(ctx) {
      const client = ctx.browser();
      await client.getJson(ctx.pub(`/self-service/login/browser?return_to=${encodeURIComponent('https://evil.example/x')}`));
      await client.get(ctx.pub(`/self-service/login/browser?return_to=${encodeURIComponent('https://evil.example/x')}`), { variant: 'browser' });
    },
  },
];
