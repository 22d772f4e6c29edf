// Anti-CSRF (contract §1.4): a submit without the CSRF cookie, with the cookie but no token, with
// another browser's token; JSON (403) and browser form (to the error UI, then the stored error);
// reading a browser flow without the cookie.
import type { Client } from '../client.ts';
import type { Scenario, ScenarioContext } from '../harness.ts';
import { createFlow, csrfOf, getFlow, navigateToFlow, newIdentity, signedInBrowser, STRONG_PASSWORD, type Flow } from './steps.ts';

const errorIdOf = (location: string | undefined) => (location ? new URL(location).searchParams.get('id') : null);

/** Reads the error a browser was sent to the error UI with, as the error page does. */
async function readError(ctx: ScenarioContext, client: Client, location: string | undefined): Promise<void> {
  const id = errorIdOf(location);
  if (id) await client.getJson(ctx.pub(`/self-service/errors?id=${id}`));
}

/** A login flow of one browser, and the credentials of a real identity to post to it. */
async function loginFlow(ctx: ScenarioContext, client: Client, browser = false): Promise<{ flow: Flow; body: Record<string, string> }> {
  const identity = await newIdentity(ctx);
  const flow = browser ? await navigateToFlow(ctx, client, 'login') : await createFlow(ctx, client, 'login');
  return { flow, body: { method: 'password', identifier: identity.email, password: STRONG_PASSWORD } };
}

export const csrfScenarios: Scenario[] = [
  {
    name: 'CSRF: a submit without the CSRF cookie (JSON 403; form to the error UI)',
    async run(ctx) {
      const { flow, body } = await loginFlow(ctx, ctx.browser());
      const stranger = ctx.browser();
      await stranger.postJson(flow.ui.action, { ...body, csrf_token: csrfOf(flow) });
      const form = await stranger.postForm(flow.ui.action, { csrf_token: csrfOf(flow), ...body });
      await readError(ctx, stranger, form.location);
    },
  },
  {
    name: 'CSRF: the cookie is there but the token is missing (JSON and form)',
    async run(ctx) {
      const client = ctx.browser();
      const { flow, body } = await loginFlow(ctx, client, true);
      await client.postJson(flow.ui.action, body);
      const form = await client.postForm(flow.ui.action, body);
      await readError(ctx, client, form.location);
    },
  },
  {
    name: 'CSRF: another browser’s token with this browser’s cookie (JSON and form)',
    async run(ctx) {
      const client = ctx.browser();
      const { flow, body } = await loginFlow(ctx, client);
      const other = ctx.browser();
      const foreign = await createFlow(ctx, other, 'login');
      await client.postJson(flow.ui.action, { ...body, csrf_token: csrfOf(foreign) });
      const form = await client.postForm(flow.ui.action, { csrf_token: csrfOf(foreign), ...body });
      await readError(ctx, client, form.location);
      await client.postJson(flow.ui.action, { ...body, csrf_token: 'not-a-token' });
    },
  },
  {
    name: 'CSRF: reading a browser flow without its CSRF cookie, and with another browser’s',
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      await getFlow(ctx, ctx.browser(), 'registration', flow.id);
      const other = ctx.browser();
      await createFlow(ctx, other, 'login');
      await getFlow(ctx, other, 'registration', flow.id);
    },
  },
  {
    name: 'CSRF: settings, recovery and verification submits without the token',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const settings = await createFlow(ctx, client, 'settings');
      await client.postJson(settings.ui.action, { method: 'password', password: 'Amber-Lantern-Falcon-27' });
      const anonymous = ctx.browser();
      const recovery = await createFlow(ctx, anonymous, 'recovery');
      await anonymous.postJson(recovery.ui.action, { method: 'code', email: 'someone@example.com' });
      const recoveryForm = await anonymous.postForm(recovery.ui.action, { method: 'code', email: 'someone@example.com' });
      await readError(ctx, anonymous, recoveryForm.location);
      const verification = await createFlow(ctx, anonymous, 'verification');
      const form = await anonymous.postForm(verification.ui.action, { method: 'code', email: 'someone@example.com' });
      await readError(ctx, anonymous, form.location);
    },
  },
];
