import type { Server } from 'node:http';
import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../server/app.ts';
import { loadConfig } from '../../../server/config.ts';
import { TOO_MANY_REQUESTS, buildOpenApiDocument, documentEndpoint, errorResponse } from '../../../server/openapi/registry.ts';
import { openApiContract } from '../../support/openapi-contract.ts';

// An endpoint registered by this test only, to check the generator on known input.
const probeBody = z.object({
  email: z.email().max(255).describe('The address to write to.'),
  csrf_token: z.string().min(1),
  traits: z.object({ name: z.string().max(32).optional() }).optional(),
});
const probeAnswer = z.object({ state: z.enum(['sent_email', 'passed_challenge']), flow: z.uuid() });
documentEndpoint({
  method: 'post',
  path: '/probe/:id',
  summary: 'Probe',
  tags: ['probe'],
  query: z.object({ flow: z.uuid().describe('The flow id.'), return_to: z.string().optional() }),
  body: probeBody,
  responses: { 200: { description: 'ok', schema: probeAnswer }, 400: errorResponse('bad'), 429: TOO_MANY_REQUESTS },
});

let server: Server;
let agent: ReturnType<typeof request>;

beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'http://127.0.0.1:1', LOG_LEVEL: 'silent' });
  const app = await createApp(config, pino({ level: 'silent' }));
  server = app.listen(0, '127.0.0.1');
  agent = request(server);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('OpenAPI registry', () => {
  it('builds an OpenAPI 3.1 document with path, query and both body encodings from zod', () => {
    const doc = buildOpenApiDocument({ PUBLIC_URL: 'https://accounts.example.com/' }) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://accounts.example.com' }]);
    const op = doc.paths['/probe/{id}'].post;
    expect(op.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      expect.objectContaining({ name: 'flow', in: 'query', required: true, description: 'The flow id.' }),
      expect.objectContaining({ name: 'return_to', in: 'query', required: false }),
    ]);
    expect(Object.keys(op.requestBody.content)).toEqual(['application/x-www-form-urlencoded', 'application/json']);
    expect(op.requestBody.content['application/json'].schema.properties.email).toMatchObject({ type: 'string', maxLength: 255 });
    expect(op.responses['429'].headers['Retry-After'].schema).toMatchObject({ type: 'integer' });
    expect(op.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.components.schemas.Error.required).toEqual(['code', 'message']);
    expect(JSON.stringify(doc)).not.toContain('$defs');
    expect(JSON.stringify(doc)).not.toContain('"$schema"');
  });

  it('validates responses and requests through the served document', async () => {
    const res = await agent.get('/swagger/openapi.json').expect(200).expect('Content-Type', /json/);
    const contract = openApiContract(res.body);
    const flow = '3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1';
    contract.response('post', '/probe/{id}', 200, { state: 'sent_email', flow });
    contract.response('post', '/probe/{id}', 429, { code: 'too_many_requests', message: 'Wait' });
    expect(() => contract.response('post', '/probe/{id}', 200, { state: 'bogus', flow })).toThrow(/does not match/);
    expect(() => contract.response('post', '/probe/{id}', 400, { message: 'no code' })).toThrow(/does not match/);
    contract.request('post', '/probe/{id}', { email: 'a@b.co', csrf_token: 'x' }, 'application/json');
    expect(() => contract.request('post', '/probe/{id}', { email: 'nope', csrf_token: 'x' }, 'application/json')).toThrow();
  });
});

describe('the served document', () => {
  it('describes the verification, resend and recovery endpoints with GET and POST', async () => {
    const doc = (await agent.get('/swagger/openapi.json').expect(200)).body;
    for (const path of ['/sign-up/verification', '/verify-account', '/sign-up/resend-verification-email', '/forgot-password', '/forgot-password/reset']) {
      expect(Object.keys(doc.paths[path] ?? {}).sort(), path).toEqual(['get', 'post']);
      const post = doc.paths[path].post;
      expect(Object.keys(post.requestBody.content), path).toEqual(['application/x-www-form-urlencoded', 'application/json']);
      expect(post.responses['429'], path).toBeDefined();
    }
  });

  it('has schemas that all compile, with every reference resolving', async () => {
    const doc = (await agent.get('/swagger/openapi.json').expect(200)).body;
    const contract = openApiContract(doc);
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (!response.content?.['application/json']) continue;
          // An empty object never matches a documented body with required members; the point here is
          // that compiling succeeds (a broken $ref throws).
          try {
            contract.response(method, path, Number(status), {});
          } catch (error) {
            expect(String(error)).toMatch(/does not match/);
          }
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});

describe('Swagger UI', () => {
  it('serves the UI page with nonce scripts and an attribute-only style relaxation', async () => {
    const res = await agent.get('/swagger/ui').expect(200).expect('Content-Type', /html/);
    const csp = String(res.headers['content-security-policy']);
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("style-src-attr 'unsafe-inline'");
    expect(csp).not.toMatch(/style-src [^;]*'unsafe-inline'/);
    expect(csp).not.toContain('unsafe-eval');
    const scripts = [...res.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    expect(scripts.length).toBe(2);
    for (const attributes of scripts) expect(attributes).toContain(`nonce="${nonce}"`);
    expect(res.text).not.toMatch(/\sstyle=/);
    expect(res.text).toContain('/swagger/assets/swagger-ui-bundle.js');
    expect(res.text).toContain('/swagger/openapi.json');
  });

  it('keeps the strict policy everywhere else', async () => {
    const res = await agent.get('/swagger/openapi.json');
    expect(String(res.headers['content-security-policy'])).not.toContain('style-src-attr');
    const other = await agent.get('/no-such-page');
    expect(String(other.headers['content-security-policy'])).not.toContain('style-src-attr');
  });

  it('serves the Swagger UI assets locally, and nothing else from the package', async () => {
    await agent
      .get('/swagger/assets/swagger-ui-bundle.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    await agent.get('/swagger/assets/swagger-ui.css').expect(200).expect('Content-Type', /css/);
    await agent.get('/swagger/assets/index.html').expect(404);
    await agent.get('/swagger/assets/package.json').expect(404);
    await agent.get('/swagger/assets/..%2Fpackage.json').expect(404);
  });

  it('redirects /swagger to the UI and translates the page title', async () => {
    await agent.get('/swagger').expect(301).expect('Location', '/swagger/ui');
    const vi = await agent.get('/swagger/ui?lng=vi').expect(200);
    expect(vi.text).toContain('<html lang="vi">');
    expect(vi.text).toContain('<title>Tài liệu API tài khoản</title>');
  });
});
