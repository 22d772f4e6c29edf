// The document app's own OAuth2 client at the provider's admin API (Hydra's /admin/clients, real or the
// stand-in): found by its client_name and brought up to date, or created, so restarting `npm start`
// never piles up clients. The admin list never shows a secret, so each start sets a fresh one.
import { randomBytes } from 'node:crypto';

export const DOCUMENT_APP_CLIENT_NAME = 'Document app (demo)';
const ADMIN_DEADLINE_MS = 10_000;
const PAGE_SIZE = 250;

export type RegisteredClient = { clientId: string; clientSecret: string };

type AdminClient = { client_id: string; client_name?: string };

const adminFetch = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(ADMIN_DEADLINE_MS) });

/** Waits until the admin API answers /health/ready (under `npm start` the provider starts alongside). */
export async function waitForAdmin(adminUrl: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let lastProblem = 'no answer';
  while (Date.now() < until) {
    try {
      const response = await adminFetch(`${adminUrl}/health/ready`);
      if (response.ok) return;
      lastProblem = `status ${response.status}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`OAuth2 admin API at ${adminUrl} not ready after ${timeoutMs} ms (${lastProblem})`);
}

/** Every client of the admin list, following Hydra's `Link: <…>; rel="next"` pages. */
async function listClients(adminUrl: string): Promise<AdminClient[]> {
  const found: AdminClient[] = [];
  let next: string | undefined = `${adminUrl}/admin/clients?page_size=${PAGE_SIZE}`;
  for (let page = 0; next && page < 100; page += 1) {
    const response = await adminFetch(next);
    if (!response.ok) throw new Error(`listing OAuth2 clients answered ${response.status}`);
    const clients = (await response.json()) as AdminClient[];
    found.push(...clients);
    const link = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    next = link && clients.length > 0 ? new URL(link, adminUrl).href : undefined;
  }
  return found;
}

export function documentAppClientBody(appUrl: string, clientSecret: string) {
  return {
    client_name: DOCUMENT_APP_CLIENT_NAME,
    client_secret: clientSecret,
    redirect_uris: [`${appUrl}/callback`],
    post_logout_redirect_uris: [`${appUrl}/`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'openid offline_access email profile',
    token_endpoint_auth_method: 'client_secret_basic',
  };
}

/**
 * Finds the client named `body.client_name` at the admin API (the first, if an older run left several)
 * and replaces it with `body` (PUT), or creates it (POST): the same client id across restarts.
 */
export async function upsertClientByName(adminUrl: string, body: { client_name: string } & Record<string, unknown>): Promise<{ client_id: string }> {
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const existing = (await listClients(adminUrl)).find((client) => client.client_name === body.client_name);
  const response = existing
    ? await adminFetch(`${adminUrl}/admin/clients/${encodeURIComponent(existing.client_id)}`, { method: 'PUT', headers, body: JSON.stringify(body) })
    : await adminFetch(`${adminUrl}/admin/clients`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!response.ok)
    throw new Error(`registering the OAuth2 client "${body.client_name}" answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return (await response.json()) as AdminClient;
}

/** The document app's client, with a fresh secret each start (the admin list never shows the old one). */
export async function registerDocumentAppClient(adminUrl: string, appUrl: string): Promise<RegisteredClient> {
  const clientSecret = randomBytes(24).toString('base64url');
  const saved = await upsertClientByName(adminUrl, documentAppClientBody(appUrl, clientSecret));
  return { clientId: saved.client_id, clientSecret };
}
