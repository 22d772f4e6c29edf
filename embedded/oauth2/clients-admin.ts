// The client admin API, `/admin/clients`: create (the secret shown once), list with Hydra's paging
// headers, read, replace, JSON-patch and delete, with real Hydra v2.3.0's answers and errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyPatch, type Operation } from 'rfc6902';
import { clientFromBody, publicClient, type Client } from './clients.ts';
import type { Context } from './context.ts';
import { HydraError, oauthError, resourceNotFound } from './errors.ts';
import { goJsonError, readBody, sendEmpty, sendJson } from './http.ts';
import { newOpaqueToken } from './tokens.ts';

const PAGE_SIZE_DEFAULT = 250;
/** Lists a create or replace answer echoes as null when the request left them out (reads show []). */
const ABSENT_AS_NULL = ['redirect_uris', 'grant_types', 'response_types', 'contacts'] as const;

/** A client body; malformed JSON gets Hydra's (herodot's) decode error, not the OAuth2 one. */
async function clientBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    throw new Error('expected a JSON object');
  } catch (error) {
    throw new HydraError('The request was malformed or contained invalid parameters', undefined, {
      status: 400,
      description: `Unable to decode the request body: ${goJsonError(text, error as Error)}`,
    });
  }
}

export async function handleClients(req: IncomingMessage, res: ServerResponse, path: string, ctx: Context): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://admin');
  const nowIso = () => new Date(ctx.clock.now()).toISOString();
  if (path === '/admin/clients') {
    if (req.method === 'POST') {
      const body = await clientBody(req);
      const client = clientFromBody(body, nowIso());
      if (ctx.store.get<Client>('client', client.client_id)) {
        throw new HydraError('Unable to insert or update resource because a resource with that value exists already', undefined, {
          status: 409,
          description: '',
        });
      }
      ctx.store.put('client', client.client_id, client, { clientId: client.client_id });
      // The create answer echoes absent lists as null, as Hydra's does; reads show [] afterwards.
      const shown = { ...publicClient(client), client_secret: client.client_secret };
      for (const field of ABSENT_AS_NULL) if (body[field] === undefined) (shown as Record<string, unknown>)[field] = null;
      const ordered = orderCreated(shown, ctx, body.client_id ? client.client_id : '');
      sendJson(res, 201, ordered, { Location: `/admin/clients/${encodeURIComponent(client.client_id)}` });
      return true;
    }
    if (req.method === 'GET') {
      const name = url.searchParams.get('client_name');
      const owner = url.searchParams.get('owner');
      const all = ctx.store.find<Client>('client', {}).filter((c) => (!name || c.client_name === name) && (!owner || c.owner === owner));
      const size = Math.max(1, Math.min(Number(url.searchParams.get('page_size')) || PAGE_SIZE_DEFAULT, 1000));
      const offset = pageOffset(url.searchParams.get('page_token'));
      const links: string[] = [];
      const link = (o: number, rel: string) =>
        `</admin/clients?page_size=${size}&page_token=${Buffer.from(JSON.stringify({ offset: String(o), v: 2 })).toString('base64url')}>; rel="${rel}"`;
      if (offset > 0) links.push(link(0, 'first'), link(Math.max(0, offset - size), 'prev'));
      if (offset + size < all.length) links.push(link(offset + size, 'next'), link(Math.floor((all.length - 1) / size) * size, 'last'));
      sendJson(res, 200, all.slice(offset, offset + size).map(publicClient), {
        'X-Total-Count': String(all.length),
        ...(links.length ? { Link: links.join(',') } : {}),
      });
      return true;
    }
    return false;
  }
  const match = /^\/admin\/clients\/([^/]+)$/.exec(path);
  if (!match) return false;
  let id: string;
  try {
    id = decodeURIComponent(match[1]!);
  } catch {
    throw resourceNotFound();
  }
  const existing = ctx.store.get<Client>('client', id);
  if (!existing) throw resourceNotFound();
  switch (req.method) {
    case 'GET':
      sendJson(res, 200, publicClient(existing));
      return true;
    case 'DELETE':
      ctx.store.delete('client', id);
      ctx.revokeClientTokens(id);
      sendEmpty(res, 204);
      return true;
    case 'PUT': {
      const body = await clientBody(req);
      const client = clientFromBody(body, nowIso(), existing);
      ctx.store.put('client', id, client, { clientId: id });
      const shown: Record<string, unknown> = {
        ...publicClient(client),
        ...(client.client_secret && client.client_secret !== existing.client_secret ? { client_secret: client.client_secret } : {}),
      };
      for (const field of ABSENT_AS_NULL) if (body[field] === undefined) shown[field] = null;
      sendJson(res, 200, shown);
      return true;
    }
    case 'PATCH': {
      const patch = (await readJsonArray(req)) as Operation[];
      const document: Record<string, unknown> = { ...publicClient(existing), client_secret: existing.client_secret };
      const results = applyPatch(document, patch);
      if (results.some((r) => r !== null)) throw oauthError('invalid_request', 'The JSON patch could not be applied.');
      // Real Hydra then looks for a client with the new id, and finds none.
      if (document.client_id !== id) throw resourceNotFound();
      const client = clientFromBody(document, nowIso(), existing);
      ctx.store.put('client', id, client, { clientId: id });
      sendJson(res, 200, publicClient(client));
      return true;
    }
    default:
      return false;
  }
}

function orderCreated(shown: Record<string, unknown>, ctx: Context, id: string): Record<string, unknown> {
  // Hydra lists the secret right after the name, and the registration members after the metadata.
  const { client_id, client_name, client_secret, ...rest } = shown;
  const out: Record<string, unknown> = { client_id, client_name, ...(client_secret ? { client_secret } : {}) };
  for (const [key, value] of Object.entries(rest)) {
    out[key] = value;
    if (key === 'metadata') {
      out.registration_access_token = newOpaqueToken('at', ctx.secret);
      // Real Hydra builds it before it generates an id: empty unless the caller chose one.
      out.registration_client_uri = `${ctx.publicUrl}/oauth2/register/${encodeURIComponent(id)}`;
    }
  }
  return out;
}

function pageOffset(token: string | null): number {
  if (!token) return 0;
  try {
    const offset = Number((JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { offset?: string }).offset);
    return Number.isInteger(offset) && offset >= 0 ? offset : 0;
  } catch {
    return 0;
  }
}

async function readJsonArray(req: IncomingMessage): Promise<unknown[]> {
  try {
    const value: unknown = JSON.parse(await readBody(req));
    if (Array.isArray(value)) return value;
  } catch {
    // answered below
  }
  throw oauthError('invalid_request', 'Unable to decode body because: expected a JSON patch (an array of operations).');
}
