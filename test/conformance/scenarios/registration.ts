// Registration (contract §5.2, §5.3, §7): the two-step profile_first flow and the unified one
// (`style: 'unified'`, Kratos v1.3's enable_legacy_one_step), as JSON and as browser form posts; the
// Back button (screen=previous); blank optional fields; validation errors; duplicates; signed in;
// the verification flow that follows sign-up, with the return_to it carries.
import type { Scenario } from '../harness.ts';
import type { ScenarioConfig } from '../targets.ts';
import { asFlow, createFlow, getFlow, navigateToFlow, newIdentity, signedInBrowser, STRONG_PASSWORD, submitForm, submitJson, uniqueEmail } from './steps.ts';

const UNIFIED: ScenarioConfig = { selfservice: { flows: { registration: { style: 'unified' } } } };

const traits = (email: string) => ({ email, name: 'Ada' });

/** The blank optional traits a browser sends when the user leaves them empty. */
const blankForm = (email: string): [string, string][] => [
  ['traits.email', email],
  ['traits.name', ''],
  ['traits.avatarRemoteId', ''],
  ['traits.loginService', ''],
];

export const registrationScenarios: Scenario[] = [
  {
    name: 'registration profile_first (JSON): profile step, credential step, then the verification flow',
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      const step2 = asFlow(await submitJson(client, flow, { method: 'profile', traits: traits(email) }));
      await getFlow(ctx, client, 'registration', flow.id);
      const done = await submitJson(client, step2, { method: 'password', traits: traits(email), password: STRONG_PASSWORD });
      const verification = (done.body as { continue_with?: { action: string; flow?: { id: string } }[] }).continue_with?.find(
        (c) => c.action === 'show_verification_ui',
      );
      if (verification?.flow) await getFlow(ctx, client, 'verification', verification.flow.id);
    },
  },
  {
    name: 'registration profile_first (browser form): both steps, then the verification UI',
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'registration');
      await submitForm(client, flow, { 'traits.email': email, 'traits.name': 'Ada', method: 'profile' });
      const step2 = asFlow(await getFlow(ctx, client, 'registration', flow.id));
      const done = await submitForm(client, step2, { 'traits.email': email, 'traits.name': 'Ada', password: STRONG_PASSWORD, method: 'password' });
      const id = done.location ? new URL(done.location).searchParams.get('flow') : null;
      if (id) await getFlow(ctx, client, 'verification', id);
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'registration (JSON): the Back button (screen=previous) returns to the profile step',
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      const step2 = asFlow(await submitJson(client, flow, { method: 'profile', traits: traits(email) }));
      // The Back button posts screen=previous and no method (method=profile would mean the credential step).
      const back = asFlow(await submitJson(client, step2, { screen: 'previous', traits: traits(email) }));
      await submitJson(client, back, { method: 'profile', traits: { ...traits(email), name: 'Grace' } });
    },
  },
  {
    name: 'registration (browser form): the Back button posts screen=previous',
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'registration');
      await submitForm(client, flow, { 'traits.email': email, 'traits.name': 'Ada', method: 'profile' });
      const step2 = asFlow(await getFlow(ctx, client, 'registration', flow.id));
      await submitForm(client, step2, { 'traits.email': email, 'traits.name': 'Ada', screen: 'previous' });
      await getFlow(ctx, client, 'registration', flow.id);
    },
  },
  {
    name: 'registration (browser form): blank optional fields in both steps',
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'registration');
      await submitForm(client, flow, [...blankForm(email), ['method', 'profile']]);
      const step2 = asFlow(await getFlow(ctx, client, 'registration', flow.id));
      await submitForm(client, step2, [...blankForm(email), ['password', STRONG_PASSWORD], ['method', 'password']]);
      const created = await ctx.admin.getJson(ctx.adm(`/admin/identities?credentials_identifier=${encodeURIComponent(email)}`));
      if (!Array.isArray(created.body) || created.body.length !== 1) throw new Error('the sign-up made no identity');
    },
  },
  {
    name: 'registration: trait validation errors (invalid and missing e-mail, JSON and form)',
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      await submitJson(client, flow, { method: 'profile', traits: { email: 'not-an-email', name: 'Ada' } });
      await submitJson(client, flow, { method: 'profile', traits: { name: 'Ada' } });
      const browser = ctx.browser();
      const formFlow = await navigateToFlow(ctx, browser, 'registration');
      await submitForm(browser, formFlow, { 'traits.email': 'not-an-email', 'traits.name': 'Ada', method: 'profile' });
      await getFlow(ctx, browser, 'registration', formFlow.id);
    },
  },
  {
    name: 'registration: a short password and one like the e-mail are refused on the credential step',
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      const step2 = asFlow(await submitJson(client, flow, { method: 'profile', traits: traits(email) }));
      const short = asFlow(await submitJson(client, step2, { method: 'password', traits: traits(email), password: 'short' }));
      await submitJson(client, short, { method: 'password', traits: traits(email), password: email });
    },
  },
  {
    name: 'registration: an e-mail that is already registered gives 4000007',
    async run(ctx) {
      const existing = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      const step2 = asFlow(await submitJson(client, flow, { method: 'profile', traits: traits(existing.email) }));
      await submitJson(client, step2, { method: 'password', traits: traits(existing.email), password: STRONG_PASSWORD });
    },
  },
  {
    name: 'registration unified (JSON): one step with the password',
    config: UNIFIED,
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      await submitJson(client, flow, { method: 'password', traits: traits(email), password: 'short' });
      const again = asFlow(await getFlow(ctx, client, 'registration', flow.id));
      await submitJson(client, again, { method: 'password', traits: traits(email), password: STRONG_PASSWORD });
    },
  },
  {
    name: 'registration unified (browser form): blank optional fields, then the verification UI',
    config: UNIFIED,
    async run(ctx) {
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'registration');
      const done = await submitForm(client, flow, [...blankForm(email), ['password', STRONG_PASSWORD], ['method', 'password']]);
      const id = done.location ? new URL(done.location).searchParams.get('flow') : null;
      if (id) await getFlow(ctx, client, 'verification', id);
    },
  },
  {
    name: 'registration: a signed-in browser cannot start or submit one',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      await client.getJson(ctx.pub('/self-service/registration/browser'));
      await client.get(ctx.pub('/self-service/registration/browser'), { variant: 'browser' });
      const other = ctx.browser();
      const flow = await createFlow(ctx, other, 'registration', '', { record: false });
      for (const [name, value] of client.jar.cookies) other.jar.cookies.set(name, value);
      await submitJson(other, flow, { method: 'profile', traits: traits(uniqueEmail('signup')) });
    },
  },
  {
    name: 'registration with return_to: the verification flow after sign-up keeps it (JSON and form)',
    async run(ctx) {
      const returnTo = `?return_to=${encodeURIComponent(`${ctx.target.appUrl}/welcome`)}`;
      const email = uniqueEmail('signup');
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration', returnTo);
      const step2 = asFlow(await submitJson(client, flow, { method: 'profile', traits: traits(email) }));
      const done = await submitJson(client, step2, { method: 'password', traits: traits(email), password: STRONG_PASSWORD });
      const next = (done.body as { continue_with?: { action: string; flow?: { id: string } }[] }).continue_with?.find(
        (c) => c.action === 'show_verification_ui',
      );
      if (next?.flow) await getFlow(ctx, client, 'verification', next.flow.id);
      const other = uniqueEmail('signup');
      const browser = ctx.browser();
      const formFlow = await navigateToFlow(ctx, browser, 'registration', returnTo);
      await submitForm(browser, formFlow, { 'traits.email': other, 'traits.name': 'Ada', method: 'profile' });
      const formStep2 = asFlow(await getFlow(ctx, browser, 'registration', formFlow.id));
      const formDone = await submitForm(browser, formStep2, { 'traits.email': other, 'traits.name': 'Ada', password: STRONG_PASSWORD, method: 'password' });
      const id = formDone.location ? new URL(formDone.location).searchParams.get('flow') : null;
      if (id) await getFlow(ctx, browser, 'verification', id);
    },
  },
];
