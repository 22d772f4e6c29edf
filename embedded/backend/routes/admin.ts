// Stand-in helpers under admin/* (not part of the real backend): the outbox, the record of the calls
// received (call-log.ts), the users kept for an address, and the purge of accounts whose deletion grace
// period is over. Invitations are created in invitations.ts.
import { z } from 'zod';
import { email, userSchema } from '../schemas.ts';
import { badRequest } from '../errors.ts';
import { ADMIN_KEY_ERRORS, errorDoc, type Route, type RouteContext } from './route.ts';

const callsQuery = z.object({ path: z.string().max(200).optional().meta({ description: 'Only the calls of this path under /api/, e.g. auth/sign-up' }) });
const usersQuery = z.object({ email });
const callRecord = z.object({ method: z.string(), path: z.string(), status: z.number().int(), at: z.iso.datetime() });

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
        description: 'Latest 50 first: recovery links created by forgot-password, invitations created with `send`.',
        responses: { 200: { description: 'Messages', schema: z.object({ messages: z.array(outboxMessage) }) }, ...ADMIN_KEY_ERRORS },
      },
      handler(req) {
        access.requireAdminKey(req);
        return { messages: o.store.outbox() };
      },
    },
    {
      method: 'get',
      path: '/api/admin/calls',
      doc: {
        tag: 'admin',
        security: 'adminKey',
        summary: 'Calls received under /api/auth and /api/user (stand-in helper)',
        description:
          'Oldest first, the latest 1000 kept in memory: method, path under /api/ (no query), the status answered and when. No bodies, queries or headers are kept.',
        query: callsQuery,
        responses: { 200: { description: 'Calls', schema: z.object({ calls: z.array(callRecord) }) }, ...ADMIN_KEY_ERRORS },
      },
      handler(req) {
        access.requireAdminKey(req);
        const query = callsQuery.safeParse(req.query);
        return { calls: o.calls!.list(query.success ? query.data.path : undefined) };
      },
    },
    {
      method: 'get',
      path: '/api/admin/users',
      doc: {
        tag: 'admin',
        security: 'adminKey',
        summary: 'The user records of an address (stand-in helper)',
        description: 'What the backend keeps for the address (not deleted), most recently updated first: e.g. the name auth/sign-up stored.',
        query: usersQuery,
        responses: {
          200: { description: 'Users', schema: z.object({ users: z.array(userSchema) }) },
          400: errorDoc('No valid email (code: invalid_query)'),
          ...ADMIN_KEY_ERRORS,
        },
      },
      handler(req) {
        access.requireAdminKey(req);
        const query = usersQuery.safeParse(req.query);
        if (!query.success) throw badRequest('invalid_query', 'Give a valid email');
        return { users: o.store.usersByEmail(query.data.email).map((u) => accounts.userJson(u)) };
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
