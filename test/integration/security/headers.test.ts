import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Express } from 'express';
import request, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, cspNonceOf, tagsOf, testApp } from '../../support/app.ts';
import { ROUTES } from '../../../core/routes.ts';

let build: ReturnType<typeof buildApp>;
let app: Express;

beforeAll(async () => {
  build = buildApp();
  app = await testApp(build.assetsDir, { PUBLIC_URL: 'https://accounts.example.com' });
});
afterAll(() => build.remove());

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

/** What every answer carries, whatever its kind. */
function expectEveryAnswerHeaders(res: Response) {
  expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(['same-origin', 'no-referrer', 'strict-origin']).toContain(res.headers['referrer-policy']);
  expect(res.headers['x-powered-by']).toBeUndefined();
  expect(res.headers['x-request-id']).toMatch(/^[\w.-]+$/);
  // Headers today's browsers ignore are not sent at all.
  for (const ignored of ['x-xss-protection', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-dns-prefetch-control']) {
    expect(res.headers[ignored], ignored).toBeUndefined();
  }
}

/** What a document (HTML) carries besides: the CSP and the framing and opener rules. */
function expectDocumentHeaders(res: Response) {
  expectEveryAnswerHeaders(res);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  const csp = String(res.headers['content-security-policy'] ?? '');
  expect(csp, 'content-security-policy').not.toBe('');
  const policy = directives(csp);
  const scriptSrc = policy.get('script-src') ?? [];
  expect(scriptSrc).toContain("'strict-dynamic'");
  const nonce = cspNonceOf(csp);
  expect(nonce).toBeDefined();
  // At least 128 bits: 16 bytes are 24 base64 characters.
  expect(Buffer.from(nonce!, 'base64').length).toBeGreaterThanOrEqual(16);
  expect(scriptSrc.some((value) => value === "'unsafe-inline'" || value === "'unsafe-eval'")).toBe(false);
  expect(policy.get('object-src')).toEqual(["'none'"]);
  expect(policy.get('base-uri')).toEqual(["'none'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  const formAction = policy.get('form-action') ?? [];
  expect(formAction).toContain("'self'");
  expect(formAction).toContain('http://localhost:4433'); // the identity service flow forms post to
  // No social provider is configured here (OIDC_PROVIDER_ORIGINS unset): none is allowed.
  expect(formAction).not.toContain('https://accounts.google.com');
  expect(policy.get('img-src')).not.toContain('https://accounts.google.com');
  expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
  expect(res.headers['x-frame-options']).toBe('DENY');
}

/** Not a document (JSON, a script, a redirect): none of the document-only headers. */
function expectNoDocumentHeaders(res: Response) {
  expectEveryAnswerHeaders(res);
  for (const documentOnly of ['content-security-policy', 'cross-origin-opener-policy', 'x-frame-options', 'origin-agent-cluster']) {
    expect(res.headers[documentOnly], documentOnly).toBeUndefined();
  }
}

describe('security headers', () => {
  it('documents (a 200 page, a 404, a 500) carry them all; JSON, scripts and redirects only what they use', async () => {
    const page = await request(app).get('/__test/form');
    expect(page.status).toBe(200);
    expectDocumentHeaders(page);
    const missing = await request(app).get('/no/such/page');
    expect(missing.status).toBe(404);
    expectDocumentHeaders(missing);
    const crash = await request(app).get('/__test/crash');
    expect(crash.status).toBe(500);
    expectDocumentHeaders(crash);
    const health = await request(app).get('/healthz');
    expect(health.status).toBe(200);
    expectNoDocumentHeaders(health);
    const script = readdirSync(path.join(build.assetsDir, 'assets')).find((file) => /^main-.*\.js$/.test(file))!;
    expectNoDocumentHeaders(await request(app).get(`/assets/${script}`).expect(200));
    expectNoDocumentHeaders(await request(app).get('/favicon.ico').expect(200));
    const badJson = await request(app).post('/anything').set('Content-Type', 'application/json').set('Accept', 'application/json').send('{oops');
    expect(badJson.status).toBe(400);
    expectNoDocumentHeaders(badJson);
  });

  it('form-action and img-src name exactly the configured social providers (OIDC_PROVIDER_ORIGINS)', async () => {
    const withProviders = await testApp(build.assetsDir, {
      PUBLIC_URL: 'https://accounts.example.com',
      OIDC_PROVIDER_ORIGINS: 'https://accounts.google.com, https://lh3.googleusercontent.com/a/picture',
    });
    const policy = directives(String((await request(withProviders).get('/__test/form')).headers['content-security-policy']));
    for (const directive of ['form-action', 'img-src']) {
      expect(policy.get(directive), directive).toEqual(expect.arrayContaining(['https://accounts.google.com', 'https://lh3.googleusercontent.com']));
      expect(policy.get(directive)!.join(' '), directive).not.toMatch(/microsoftonline|dropbox|apple/);
    }
  });

  it('img-src allows uploaded avatars from AVATAR_STORAGE_URL, else from BACKEND_URL (issue #16 item 1)', async () => {
    const defaults = await testApp(build.assetsDir, { BACKEND_URL: 'http://localhost:4500' });
    const imgDefault = directives(String((await request(defaults).get('/__test/form')).headers['content-security-policy'])).get('img-src');
    expect(imgDefault).toContain('http://localhost:4500');
    const bucket = await testApp(build.assetsDir, { BACKEND_URL: 'http://backend.internal:4500', AVATAR_STORAGE_URL: 'https://storage.example.com/profiles/' });
    const imgBucket = directives(String((await request(bucket).get('/__test/form')).headers['content-security-policy'])).get('img-src');
    expect(imgBucket).toContain('https://storage.example.com');
    expect(imgBucket).not.toContain('http://backend.internal:4500');
  });

  it('HTML is never cached, whatever its status', async () => {
    for (const url of ['/__test/form', '/missing', '/__test/crash', '/404']) {
      const res = await request(app).get(url);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('a fresh CSP nonce per response, carried by every script and style tag and by nothing else', async () => {
    const first = await request(app).get('/__test/form');
    const second = await request(app).get('/__test/form');
    const nonces = [cspNonceOf(first.headers['content-security-policy']), cspNonceOf(second.headers['content-security-policy'])];
    expect(nonces[0]).toBeDefined();
    expect(nonces[0]).not.toBe(nonces[1]);
    for (const [index, res] of [first, second].entries()) {
      const scripts = tagsOf(res.text, 'script');
      expect(scripts.length).toBeGreaterThanOrEqual(2); // the theme bootstrap and the islands bundle
      for (const { tag, nonce } of [...scripts, ...tagsOf(res.text, 'style')]) {
        expect(nonce, tag).toBe(nonces[index]);
      }
      expect(res.text).not.toMatch(/\sstyle="/); // no inline style attributes: the CSP would block them
    }
    // The 404 and crash pages too.
    for (const url of ['/missing', '/__test/crash']) {
      const res = await request(app).get(url);
      const nonce = cspNonceOf(res.headers['content-security-policy']);
      const scripts = tagsOf(res.text, 'script');
      expect(scripts.length).toBeGreaterThan(0);
      for (const { tag, nonce: found } of scripts) expect(found, `${url}: ${tag}`).toBe(nonce);
    }
  });

  it('the page shell: lang, canonical link, favicon as data:, viewport at scale 1, one stylesheet', async () => {
    const res = await request(app).get('/missing?x=1');
    expect(res.text).toMatch(/^<!doctype html><html lang="en"/);
    expect(res.text).toContain('<link rel="canonical" href="https://accounts.example.com/missing"/>');
    // The favicon in the page itself (decision 195): no request for it.
    expect(res.text).toMatch(/<link rel="icon" href="data:image\/svg\+xml,/);
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    // Zoom stays allowed on phones (WCAG 1.4.4): no maximum-scale, no user-scalable=no.
    expect(res.text).not.toMatch(/maximum-scale|user-scalable/);
    expect(res.text.match(/rel="stylesheet"/g)).toHaveLength(1);
  });

  it('text answers are compressed when the client accepts it', async () => {
    const res = await request(app).get('/__test/form').set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
  });

  it('JSON is compressed for a client that prefers it while also accepting HTML; a page load is compressed by the page', async () => {
    const json = await request(app).get(ROUTES.swaggerDocument).set('Accept', 'application/json, text/html;q=0.9').set('Accept-Encoding', 'gzip');
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers['content-encoding']).toBe('gzip');
    const page = await request(app)
      .get('/missing')
      .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')
      .set('Accept-Encoding', 'gzip, deflate, br, zstd');
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(page.headers.vary).toBe('Accept-Encoding');
  });

  it('rendered pages are gzip whenever it is accepted, even beside brotli (decision 240), plain when it is not', async () => {
    const gzipped = await request(app).get('/missing').set('Accept-Encoding', 'gzip, deflate, br, zstd');
    expect(gzipped.status).toBe(404);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gzipped.text).toMatch(/^<!doctype html>/); // supertest decodes it: the body is intact
    const plain = await request(app).get('/missing').set('Accept-Encoding', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    // Same page either way, but for the per-response nonce.
    const withoutNonce = (html: string) => html.replace(/nonce="[^"]+"/g, 'nonce=""');
    expect(withoutNonce(plain.text)).toBe(withoutNonce(gzipped.text));
  });

  it('hashed assets are cached for a year as immutable, without validators or ranges; the manifest is not served', async () => {
    const files = readdirSync(path.join(build.assetsDir, 'assets'));
    const css = files.find((file) => file.endsWith('.css'));
    const js = files.find((file) => file.endsWith('.js'));
    for (const file of [css, js]) {
      expect(file).toMatch(/-[A-Z0-9]{8}\.(css|js)$/);
      const res = await request(app).get(`/assets/${file}`).set('Accept-Encoding', 'gzip');
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect([res.headers.etag, res.headers['last-modified'], res.headers['accept-ranges']]).toEqual([undefined, undefined, undefined]);
    }
    expect((await request(app).get('/manifest.json')).status).toBe(404);
    expect((await request(app).get('/assets/nope-ABCDEFGH.js')).status).toBe(404);
  });

  it('static files go out as the build compressed them: brotli 11, else gzip 9, else plain', async () => {
    const js = readdirSync(path.join(build.assetsDir, 'assets')).find((file) => /^main-.*\.js$/.test(file))!;
    const onDisk = (suffix: string) => readFileSync(path.join(build.assetsDir, 'assets', `${js}${suffix}`));
    // The bytes as sent (supertest would decode them), from the app listening for real.
    const server = app.listen(0);
    const port = (server.address() as AddressInfo).port;
    const raw = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get({ port, path: `/assets/${js}`, headers: { 'accept-encoding': encoding } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    const br = await raw('gzip, deflate, br, zstd');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.compare(br.body as Buffer, onDisk('.br'))).toBe(0); // the file itself: nothing compressed per request
    expect(onDisk('.br').length).toBeLessThan(onDisk('.gz').length);
    const gz = await raw('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Buffer.compare(gz.body as Buffer, onDisk('.gz'))).toBe(0);
    const plain = await raw('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Buffer.compare(plain.body as Buffer, onDisk(''))).toBe(0);
    server.close();
  });
});

describe('request id', () => {
  it('echoes a well-formed X-Request-Id and makes one up otherwise', async () => {
    const echoed = await request(app).get('/healthz').set('X-Request-Id', 'lb-1234.abc_DEF');
    expect(echoed.headers['x-request-id']).toBe('lb-1234.abc_DEF');
    const invented = await request(app).get('/healthz');
    expect(invented.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // Header injection or absurd lengths are not echoed.
    const hostile = await request(app)
      .get('/healthz')
      .set('X-Request-Id', `${'a'.repeat(200)}`);
    expect(hostile.headers['x-request-id']).not.toBe('a'.repeat(200));
    const spaced = await request(app).get('/healthz').set('X-Request-Id', 'a b<script>');
    expect(spaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the crash page shows the request id it was given', async () => {
    const res = await request(app).get('/__test/crash').set('X-Request-Id', 'trace-42');
    expect(res.text).toContain('trace-42');
  });
});
