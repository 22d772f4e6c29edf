// A page whose compression fails is still answered, uncompressed, and the failure is logged (decision 245):
// the kept zlib streams are made to fail here, which nothing in a real run is known to do.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, memoryLogger, testApp } from '../../support/app.ts';

vi.mock('../../../server/page-deflate.ts', () => ({ deflatePagePart: () => Promise.reject(new Error('deflate failed in this test')) }));

let build: ReturnType<typeof buildApp>;
beforeAll(() => {
  build = buildApp();
});
afterAll(() => build.remove());

describe('a page that could not be compressed', () => {
  it('is sent whole without Content-Encoding, and the failure is logged', async () => {
    const log = memoryLogger();
    const app = await testApp(build.assetsDir, {}, log.logger);
    // The 404 page is rendered per request and compressed on a kept stream (no template): the mocked failure.
    const answer = await request(app).get('/nowhere').set('Accept', 'text/html').set('Accept-Encoding', 'gzip').buffer(true);
    expect(answer.status).toBe(404);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.text.trimEnd()).toMatch(/^<!doctype html>[\s\S]*<\/html>$/);
    expect(log.lines().some((line) => line.includes('page compression failed'))).toBe(true);
  });
});
