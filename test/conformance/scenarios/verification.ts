// Verification (contract §10): by code (the product's setting) and by link (`use: link`), as JSON and
// as browser form posts; a wrong code; an unknown address; the mailed link opened by a browser.
import type { Scenario } from '../harness.ts';
import type { ScenarioConfig } from '../targets.ts';
import { asFlow, createFlow, getFlow, mailedCode, mailedLink, navigateToFlow, newIdentity, submitForm, submitJson, uniqueEmail } from './steps.ts';

const LINK: ScenarioConfig = { selfservice: { flows: { verification: { use: 'link' } } } };

export const verificationScenarios: Scenario[] = [
  {
    name: 'verification by code (JSON): send, then the mailed code verifies the address',
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'verification');
      const sent = asFlow(await submitJson(client, flow, { method: 'code', email: identity.email }));
      const code = await mailedCode(ctx, identity.email);
      await submitJson(client, sent, { method: 'code', code });
      await getFlow(ctx, client, 'verification', flow.id);
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}`));
    },
  },
  {
    name: 'verification by code (browser form): send, then the code',
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'verification');
      await submitForm(client, flow, { email: identity.email, method: 'code' });
      const sent = asFlow(await getFlow(ctx, client, 'verification', flow.id));
      const code = await mailedCode(ctx, identity.email);
      await submitForm(client, sent, { code, method: 'code' });
      await getFlow(ctx, client, 'verification', flow.id);
    },
  },
  {
    name: 'verification by code: a wrong code, then resending the code',
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'verification');
      const sent = asFlow(await submitJson(client, flow, { method: 'code', email: identity.email }));
      await mailedCode(ctx, identity.email);
      const wrong = asFlow(await submitJson(client, sent, { method: 'code', code: '000000' }));
      await submitJson(client, wrong, { method: 'code', email: identity.email });
      await mailedCode(ctx, identity.email, 2);
    },
  },
  {
    name: 'verification by code: an unknown address is answered like a known one, and gets no mail',
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'verification');
      await submitJson(client, flow, { method: 'code', email: uniqueEmail('nobody') });
      await submitJson(client, flow, { method: 'code', email: 'not-an-email' });
    },
  },
  {
    name: 'verification by link (JSON): send, then a browser opens the mailed link',
    config: LINK,
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'verification');
      await submitJson(client, flow, { method: 'link', email: identity.email });
      const link = await mailedLink(ctx, identity.email);
      await client.get(link, { variant: 'browser' });
      await getFlow(ctx, client, 'verification', flow.id);
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}`));
    },
  },
  {
    name: 'verification by link (browser form): send, open the link in another browser, reuse it',
    config: LINK,
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'verification');
      await submitForm(client, flow, { email: identity.email, method: 'link' });
      await getFlow(ctx, client, 'verification', flow.id);
      const link = await mailedLink(ctx, identity.email);
      const other = ctx.browser();
      await other.get(link, { variant: 'browser' });
      await other.get(link, { variant: 'browser' });
    },
  },
  {
    name: 'verification by code: a link token on the code flow is not for its strategy (4010006 on the same flow)',
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'verification');
      await submitForm(client, flow, { email: identity.email, method: 'code' });
      await mailedCode(ctx, identity.email);
      await client.get(ctx.pub(`/self-service/verification?flow=${flow.id}&token=made-up-token`), { variant: 'browser' });
      await getFlow(ctx, client, 'verification', flow.id);
    },
  },
];
