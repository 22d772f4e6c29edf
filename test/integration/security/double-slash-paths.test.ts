// Issue 10 #3: a path starting with `//` or `/\` must never be read as an authority (another host):
// not in the account host's redirect, not in the 404 page's canonical link, and it must not crash.
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp, testApp } from '../../support/app.ts';

const PUBLIC_URL = 'https://accounts.example.com';
const ACCOUNT_HOST = 'login.example.com';
let build: ReturnType<typeof buildApp>;
let app: Express;

beforeAll(async () => {
  build = buildApp();
  app = await testApp(build.assetsDir, { PUBLIC_URL, ACCOUNT_HOST, KRATOS_PUBLIC_URL: 'http://127.0.0.1:9' });
});
afterAll(() => build?.remove());

const PAGE_TRICKS = ['//', '/\\', '//?a=1'];
const TRICKS = [
  '//evil.example/x',
  '/\\evil.example/x',
  '/\\/evil.example/x',
  '///evil.example/x',
  '/%2F/evil.example/x',
  '//evil.example',
  '/\\\\evil.example/x?a=1',
];

/** What a browser makes of a Location header or link, resolved against the page it came from. */
const resolved = (value: string) => new URL(value, `${PUBLIC_URL}/sign-in`);

describe('`//` and `/\\` paths', () => {
  test.each(TRICKS)('on the account host, %s is redirected to a path of PUBLIC_URL, never to another host', async (trick) => {
    const answer = await request(app).get(trick).set('Host', ACCOUNT_HOST);
    expect(answer.status).toBe(303);
    const target = resolved(answer.headers.location as string);
    expect(target.origin).toBe(PUBLIC_URL);
    expect(answer.headers.location).toMatch(new RegExp(`^${PUBLIC_URL}/[^/\\\\]`));
  });

  test.each(PAGE_TRICKS)('%s is the home page (a guest is sent to sign in, return_to on PUBLIC_URL), never a 500', async (trick) => {
    const onAccountHost = await request(app).get(trick).set('Host', ACCOUNT_HOST);
    expect(onAccountHost.status).toBe(303);
    expect(resolved(onAccountHost.headers.location as string).origin).toBe(PUBLIC_URL);
    const answer = await request(app).get(trick).set('Accept', 'text/html');
    expect(answer.status).toBe(303);
    const location = resolved(answer.headers.location as string);
    expect(location.pathname).toBe('/sign-in');
    expect(new URL(location.searchParams.get('return_to')!).origin).toBe(PUBLIC_URL);
    expect((await request(app).get(trick).set('Accept', 'application/json')).status).toBe(401);
  });

  test.each(TRICKS)('on the public host, %s is the branded 404 with a canonical link on PUBLIC_URL', async (trick) => {
    const answer = await request(app).get(trick).set('Host', 'accounts.example.com').set('Accept', 'text/html');
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('Internal Server Error');
    const canonical = /<link rel="canonical" href="([^"]*)"/.exec(answer.text)?.[1];
    expect(canonical).toBeDefined();
    expect(new URL(canonical!).origin).toBe(PUBLIC_URL);
    expect(answer.text).not.toMatch(/href="(https?:)?\/\/evil\.example/);
  });

  test.each(TRICKS)('%s as JSON is a 404 in the error shape', async (trick) => {
    const answer = await request(app).get(trick).set('Accept', 'application/json');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'not_found' });
  });
});
