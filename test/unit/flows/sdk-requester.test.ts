// The Ory SDK's API classes send through sdkRequester (server/flows/sdk-requester.ts), not axios: the
// answers must read as axios gave them, since every caller of a class method was written against axios.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Configuration, FrontendApi, IdentityApi } from '@ory/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sdkRequester } from '../../../server/flows/sdk-requester.ts';
import { kratosAdapter, type AdapterConfig } from '../../../server/flows/transport.ts';

let server: http.Server;
let base: string;
const seen: { method: string; url: string; authorization?: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      if (req.url === '/sessions/whoami') {
        res.statusCode = 401;
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ error: { id: 'session_inactive', code: 401 } }));
      }
      if (req.url?.startsWith('/admin/identities/')) {
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ id: req.url.split('/').at(-1), metadata_public: { a: 1 } }));
      }
      res.statusCode = 502;
      res.end('Bad gateway, not JSON');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as { response: { status: number; data: unknown } };
  }
  throw new Error('expected the call to reject');
}

describe('sdkRequester', () => {
  test("a class call: the SDK's request (path, bearer, JSON body) on the base options' transport, the answer parsed", async () => {
    const used: string[] = [];
    const adapter = (config: AdapterConfig) => {
      used.push(String(config.url));
      return kratosAdapter(config);
    };
    const admin = new IdentityApi(new Configuration({ basePath: base, accessToken: 'key', baseOptions: { adapter } }), undefined, sdkRequester);
    const answer = await admin.patchIdentity({ id: 'i-1', jsonPatch: [{ op: 'add', path: '/metadata_public', value: { b: 2 } }] });
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ id: 'i-1', metadata_public: { a: 1 } });
    expect(used).toEqual([`${base}/admin/identities/i-1`]);
    expect(seen.at(-1)).toMatchObject({ method: 'PATCH', url: '/admin/identities/i-1', authorization: 'Bearer key' });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual([{ op: 'add', path: '/metadata_public', value: { b: 2 } }]);
  });

  test('a non-2xx answer rejects with its status and its JSON body parsed, as axios did', async () => {
    const frontend = new FrontendApi(new Configuration({ basePath: base }), undefined, sdkRequester);
    const error = await rejection(frontend.toSession({ cookie: 'ory_kratos_session=x' }));
    expect(error.response.status).toBe(401);
    expect(error.response.data).toEqual({ error: { id: 'session_inactive', code: 401 } });
  });

  test('a body that is not JSON stays text', async () => {
    const frontend = new FrontendApi(new Configuration({ basePath: base, baseOptions: { adapter: kratosAdapter } }), undefined, sdkRequester);
    const error = await rejection(frontend.getLoginFlow({ id: 'x' }));
    expect(error.response.status).toBe(502);
    expect(error.response.data).toBe('Bad gateway, not JSON');
  });
});
