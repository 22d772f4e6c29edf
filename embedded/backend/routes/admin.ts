// Stand-in helpers under admin/* (not part of the real backend): the outbox and the purge of accounts
// whose deletion grace period is over. Invitations are created in invitations.ts.
import { z } from 'zod';
import { ADMIN_KEY_ERRORS, type Route, type RouteContext } from './route.ts';

const outboxMessage = z.object({
  id: z.number().int(),
  kind: z.string(),
  email: z.string(),
  identityId: z.string().nullable(),
  link: z.string().nullable(),
  expiresAt: z.string().nullable(),
  createdAt: z.iso.datetime(),
});

export function adminRoutes({ o, accounts, access }: RouteContext): Route[] {
  return [
    {
      method: 'get',
      path: '/api/admin/outbox',
      doc: {
        tag: 'admin',
        security: 'adminKey',
        summary: 'Messages the stand-in would have sent (stand-in helper)',
        description: 'Latest 50 first: recovery links created by forgot-password.',
        responses: { 200: { description: 'Messages', schema: z.object({ messages: z.array(outboxMessage) }) }, ...ADMIN_KEY_ERRORS },
      },
      handler(req) {
        access.requireAdminKey(req);
        return { messages: o.store.outbox() };
      },
    },
    {
      method: 'post',
      path: '/api/admin/purge-deleted-accounts',
      doc: {
        tag: 'admin',
        security: 'adminKey',
        summary: 'Purge accounts whose grace period is over (stand-in helper)',
        responses: { 200: { description: 'Purged', schema: z.object({ purged: z.number().int() }) }, ...ADMIN_KEY_ERRORS },
      },
      async handler(req) {
        access.requireAdminKey(req);
        return { purged: await accounts.purgeDue() };
      },
    },
  ];
}
