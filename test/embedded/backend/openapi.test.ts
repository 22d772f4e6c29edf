// The backend stand-in's OpenAPI document is generated from its routes: it must cover every route the
// Express app serves, and real answers must match the schemas it documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createBackendApp, silentLogger } from '../../../embedded/backend/app.ts';
import { Store } from '../../../embedded/backend/db.ts';
import { createTestClock } from '../../../embedded/clock.ts';
import { ADMIN_KEY, AUDIENCE, ISSUER, makeKeys, mint, startFakeAdmin, startTestBackend, type FakeAdmin, type Keys, type TestBackend } from './helpers.ts';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
type Document = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** The (method, path) pairs the app routes to a handler, read from Express's own router. */
function servedRoutes(): string[] {
  const dataDir = mkdtempSync(join(tmpdir(), 'backend-openapi-'));
  const store = new Store(':memory:');
  const { app } = createBackendApp({
    store,
    avatarsDir: dataDir,
    publicUrl: () => 'http://backend.test',
    identityPublicUrl: ISSUER,
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [] },
    identityAdmin: null,
    identitySchemaId: 'default',
    canny: null,
    corsOrigins: [],
    deletionGracePeriodMs: 1,
    invitationTtlMs: 1,
    clock: createTestClock(),
    logger: silentLogger,
  });
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
  const stack = (app.router as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] }).stack;
  const served = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !layer.route.path.startsWith('/api/')) continue;
    const methods = Object.keys(layer.route.methods);
    // A route made by app.all (the 405 answer) lists every method; the OPTIONS answers list the Allow set.
    // Neither is an operation: an operation is a route of exactly one other method.
    if (methods.length === 1 && methods[0] !== 'options') served.add(`${methods[0]} ${layer.route.path}`);
  }
  return [...served].sort();
}

describe('backend stand-in: generated OpenAPI document', () => {
  let keys: Keys;
  let admin: FakeAdmin;
  let backend: TestBackend;
  let doc: Document;
  let ajv: Ajv2020;
  const clock = createTestClock();

  beforeAll(async () => {
    keys = await makeKeys();
    admin = await startFakeAdmin();
    backend = await startTestBackend({ jwks: keys.jwks, identityAdminUrl: admin.url, identityAdminApiKey: ADMIN_KEY, clock });
    doc = (await request(backend.url).get('/api/openapi.json').expect(200).expect('Content-Type', /json/)).body;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'doc');
  });
  afterAll(async () => {
    await backend.close();
    await admin.close();
  });

  /** Asserts that a real answer matches the schema the document gives for its status. */
  const expectDocumented = (method: string, path: string, res: { status: number; body: unknown }) => {
    const op = doc.paths[path.slice(doc.servers[0]!.url.length)]?.[method];
    expect(op, `${method} ${path} documented`).toBeDefined();
    expect(op!.responses[String(res.status)]?.content?.['application/json'], `${method} ${path} ${res.status} documented`).toBeDefined();
    const ref = ['paths', path.slice(doc.servers[0]!.url.length), method, 'responses', String(res.status), 'content', 'application/json', 'schema'];
    const validate = ajv.getSchema(`doc#/${ref.map(escapePointer).join('/')}`)!;
    const ok = validate(res.body);
    expect(ok, `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  };

  it('is OpenAPI 3.1 under the /api server and describes exactly the routes the app serves', () => {
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.servers).toEqual([{ url: '/api' }]);
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} /api${path}`))
      .sort();
    const served = servedRoutes();
    expect(served.length).toBeGreaterThan(20);
    expect(documented).toEqual(served);
  });

  it('real answers of the user lifecycle match the documented schemas', async () => {
    const email = `doc${randomUUID().slice(0, 8)}@example.com`;
    const identity = admin.add(email);
    const auth = `Bearer ${await mint(keys, { sub: identity.id, email, now: clock.now() })}`;
    const api = () => request(backend.url);
    expectDocumented('post', '/api/auth/sign-up', await api().post('/api/auth/sign-up').set('Authorization', auth).send({ name: 'Doc' }));
    expectDocumented('post', '/api/auth/sign-up', await api().post('/api/auth/sign-up').set('Authorization', auth).send({}));
    expectDocumented('post', '/api/auth/sign-out', await api().post('/api/auth/sign-out').set('Authorization', auth).send({ loginService: 'google' }));
    expectDocumented('get', '/api/user/get-current-user', await api().get('/api/user/get-current-user').set('Authorization', auth));
    expectDocumented(
      'post',
      '/api/user/confirm-link-account',
      await api().post('/api/user/confirm-link-account').set('Authorization', auth).send({ provider: 'Apple', email }),
    );
    expectDocumented('get', '/api/user/get-organization-team-owner', await api().get('/api/user/get-organization-team-owner').set('Authorization', auth));
    expectDocumented('post', '/api/user/delete-account', await api().post('/api/user/delete-account').set('Authorization', auth).send({}));
    expectDocumented('post', '/api/auth/sign-up', await api().post('/api/auth/sign-up').set('Authorization', auth).send({}));
    expectDocumented('patch', '/api/user/reactivate-account', await api().patch('/api/user/reactivate-account').set('Authorization', auth));
    expectDocumented('post', '/api/auth/forgot-password', await api().post('/api/auth/forgot-password').send({ email }));
    expectDocumented('get', '/api/admin/outbox', await api().get('/api/admin/outbox').set('Authorization', `Bearer ${ADMIN_KEY}`));
  });

  it('invitations, helpers and errors match the documented schemas', async () => {
    const api = () => request(backend.url);
    const created = await api().post('/api/admin/invitations').set('Authorization', `Bearer ${ADMIN_KEY}`).send({ email: 'invited@example.com' });
    expectDocumented('post', '/api/admin/invitations', created);
    expectDocumented('get', '/api/auth/invitation', await api().get('/api/auth/invitation').query({ token: created.body.token }));
    expectDocumented('get', '/api/auth/invitation', await api().get('/api/auth/invitation').query({ token: 'unknown' }));
    expectDocumented('get', '/api/user/get-current-user', await api().get('/api/user/get-current-user'));
    expectDocumented(
      'post',
      '/api/admin/purge-deleted-accounts',
      await api().post('/api/admin/purge-deleted-accounts').set('Authorization', `Bearer ${ADMIN_KEY}`),
    );
    expectDocumented('get', '/api/user/user-location', await api().get('/api/user/user-location'));
    expectDocumented('get', '/api/health', await api().get('/api/health'));
  });
});
