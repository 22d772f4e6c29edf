// The admin API calls the backend (embedded/backend/identity-admin.ts) and the tests make (contract
// §16): identities create (the invitation's body), get, list by credentials_identifier, patch (the
// avatar trait sync's add/remove), update, delete; an identity's sessions listed and revoked
// (DELETE /admin/identities/{id}/sessions, the backend's sign-out-everywhere); courier messages.
import { vi } from 'vitest';
import type { Scenario, ScenarioContext } from '../harness.ts';
import { createFlow, newIdentity, signedInBrowser, STRONG_PASSWORD, submitJson, uniqueEmail, waitForMail } from './steps.ts';

const UNKNOWN = '6a3f9a34-5a4e-4c9f-8d7e-1f2a3b4c5d6e';

/** The body the backend's invitation sign-up sends (embedded/backend/routes/invitations.ts). */
const invitationBody = (email: string) => ({
  schema_id: 'default',
  traits: { email, loginService: 'EMAIL_PASSWORD', name: 'Ada' },
  state: 'active',
  credentials: { password: { config: { password: STRONG_PASSWORD } } },
  verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
});

async function created(ctx: ScenarioContext, email = uniqueEmail('admin')): Promise<string> {
  const answer = await ctx.admin.postJson(ctx.adm('/admin/identities'), invitationBody(email));
  const id = (answer.body as { id?: string }).id;
  if (!id) throw new Error(`create: ${answer.status}`);
  return id;
}

export const adminScenarios: Scenario[] = [
  {
    name: 'admin identities: create (the invitation body), get, get with include_credential',
    async run(ctx) {
      const id = await created(ctx);
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${id}`));
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${id}?include_credential=password`));
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${UNKNOWN}`));
    },
  },
  {
    name: 'admin identities: list by credentials_identifier (the backend’s findByEmail) and by ids',
    async run(ctx) {
      const email = uniqueEmail('admin');
      const id = await created(ctx, email);
      await ctx.admin.getJson(ctx.adm(`/admin/identities?credentials_identifier=${encodeURIComponent(email)}`));
      await ctx.admin.getJson(ctx.adm(`/admin/identities?credentials_identifier=${encodeURIComponent(email.toUpperCase())}`));
      await ctx.admin.getJson(ctx.adm(`/admin/identities?credentials_identifier=${encodeURIComponent(uniqueEmail('nobody'))}`));
      await ctx.admin.getJson(ctx.adm(`/admin/identities?ids=${id}`));
    },
  },
  {
    name: 'admin identities: create conflicts and refusals (409, invalid traits, unknown members)',
    async run(ctx) {
      const email = uniqueEmail('admin');
      await created(ctx, email);
      await ctx.admin.postJson(ctx.adm('/admin/identities'), invitationBody(email));
      await ctx.admin.postJson(ctx.adm('/admin/identities'), { schema_id: 'default', traits: { email: 'not-an-email' } });
      await ctx.admin.postJson(ctx.adm('/admin/identities'), { schema_id: 'default', traits: { email: uniqueEmail('admin') }, surprise: true });
      await ctx.admin.postJson(ctx.adm('/admin/identities'), { schema_id: 'unknown', traits: { email: uniqueEmail('admin') } });
    },
  },
  {
    name: 'admin identities: patch (name, the avatar trait added and removed, state) and refusals',
    async run(ctx) {
      const id = await created(ctx);
      const patch = (ops: unknown[]) => ctx.admin.request('PATCH', ctx.adm(`/admin/identities/${id}`), { json: ops });
      await patch([{ op: 'replace', path: '/traits/name', value: 'Grace' }]);
      await patch([{ op: 'add', path: '/traits/avatarRemoteId', value: 'avatar-1.png' }]);
      await patch([{ op: 'remove', path: '/traits/avatarRemoteId' }]);
      await patch([{ op: 'remove', path: '/traits/avatarRemoteId' }]);
      await patch([{ op: 'replace', path: '/state', value: 'inactive' }]);
      await patch([{ op: 'replace', path: '/id', value: UNKNOWN }]);
      await patch([{ op: 'replace', path: '/traits/email', value: 'not-an-email' }]);
      await ctx.admin.request('PATCH', ctx.adm(`/admin/identities/${UNKNOWN}`), { json: [{ op: 'replace', path: '/traits/name', value: 'x' }] });
    },
  },
  {
    name: 'admin identities: update (PUT) and refusals',
    async run(ctx) {
      const email = uniqueEmail('admin');
      const id = await created(ctx, email);
      const put = (target: string, body: unknown) => ctx.admin.request('PUT', ctx.adm(`/admin/identities/${target}`), { json: body });
      await put(id, { schema_id: 'default', state: 'active', traits: { email, name: 'Grace' }, metadata_public: { plan: 'free' } });
      await put(id, { schema_id: 'default', state: 'active', traits: { email: 'not-an-email' } });
      await put(UNKNOWN, { schema_id: 'default', state: 'active', traits: { email } });
    },
  },
  {
    name: 'admin identities: delete (204), then get and delete again (404)',
    async run(ctx) {
      const id = await created(ctx);
      await ctx.admin.request('DELETE', ctx.adm(`/admin/identities/${id}`));
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${id}`));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/identities/${id}`));
    },
  },
  {
    name: 'admin sessions: list an identity’s sessions, revoke them all, whoami then fails',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}/sessions`));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/identities/${identity.id}/sessions`));
      await client.getJson(ctx.pub('/sessions/whoami'));
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}/sessions`));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/identities/${UNKNOWN}/sessions`));
    },
  },
  {
    name: 'admin courier: messages listed by recipient, and one by id',
    async run(ctx) {
      const identity = await newIdentity(ctx, { verified: false });
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'verification', '', { record: false });
      await submitJson(client, flow, { method: 'code', email: identity.email }, { record: false });
      // Real Kratos's courier sends in the background: wait until both have sent it (status is compared).
      await vi.waitFor(
        async () => {
          const message = await waitForMail(ctx, identity.email);
          if (message.status !== 'sent') throw new Error('not sent yet');
        },
        { timeout: 10_000, interval: 100 },
      );
      const list = await ctx.admin.getJson(ctx.adm(`/admin/courier/messages?recipient=${encodeURIComponent(identity.email)}`));
      const id = Array.isArray(list.body) ? (list.body[0] as { id?: string } | undefined)?.id : undefined;
      if (id) await ctx.admin.getJson(ctx.adm(`/admin/courier/messages/${id}`));
      await ctx.admin.getJson(ctx.adm(`/admin/courier/messages/${UNKNOWN}`));
    },
  },
];
