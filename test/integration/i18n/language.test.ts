import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_COOKIE_MAX_AGE_MS, sameOriginPath } from '../../../server/routes/language.ts';
import { buildApp, testApp } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
let app: Express;

beforeAll(async () => {
  build = buildApp();
  app = await testApp(build.assetsDir, { PUBLIC_URL: 'https://accounts.example.com' });
});
afterAll(() => build.remove());

const langOf = (html: string) => /<html lang="([^"]+)"/.exec(html)?.[1];

describe('language detection: ?lng, then the lng cookie, then Accept-Language, then en', () => {
  const cases: Array<[string, { query?: string; cookie?: string; accept?: string }, string]> = [
    ['query beats cookie and header', { query: 'pt', cookie: 'fr', accept: 'es' }, 'pt'],
    ['cookie beats header', { cookie: 'fr', accept: 'es' }, 'fr'],
    ['header alone', { accept: 'es-MX,es;q=0.9,en;q=0.5' }, 'es'],
    ['header region variant', { accept: 'vi-VN' }, 'vi'],
    ['header quality order', { accept: 'de;q=1, fr;q=0.8, en;q=0.2' }, 'fr'],
    ['nothing: en', {}, 'en'],
    ['unsupported everything: en', { query: 'de', cookie: 'ja', accept: 'zh-CN' }, 'en'],
  ];
  for (const [name, { query, cookie, accept }, expected] of cases) {
    it(name, async () => {
      let req = request(app).get(`/missing${query ? `?lng=${query}` : ''}`);
      if (cookie) req = req.set('Cookie', `lng=${cookie}`);
      if (accept) req = req.set('Accept-Language', accept);
      const res = await req;
      expect(langOf(res.text)).toBe(expected);
      expect(res.headers['content-language']).toBe(expected);
    });
  }

  it('each of the five languages has its own text', async () => {
    const titles = new Set<string>();
    for (const lng of ['en', 'vi', 'fr', 'pt', 'es']) {
      const res = await request(app).get(`/missing?lng=${lng}`);
      titles.add(/<h1>([^<]+)<\/h1>/.exec(res.text)![1]!);
    }
    expect(titles.size).toBe(5);
  });
});

describe('GET /language', () => {
  it('sets the lng cookie for 360 days, SameSite=Lax, and goes back with 303', async () => {
    const res = await request(app).get('/language?lng=vi&return_to=%2Fsign-in%3Freturn_to%3D%252Fx');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/sign-in?return_to=%2Fx');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^lng=vi;/);
    expect(cookie).toContain(`Max-Age=${LANGUAGE_COOKIE_MAX_AGE_MS / 1000}`);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
  });

  it('the cookie then chooses the language of the next page', async () => {
    const agent = request.agent(app);
    await agent.get('/language?lng=fr&return_to=/missing');
    const res = await agent.get('/missing').set('Accept-Language', 'es');
    expect(langOf(res.text)).toBe('fr');
  });

  it('drops a stale lng from the return address so the choice sticks', async () => {
    const res = await request(app).get(`/language?lng=es&return_to=${encodeURIComponent('/sign-up?lng=fr&x=1')}`);
    expect(res.headers.location).toBe('/sign-up?x=1');
  });

  it('an unsupported language sets nothing but still returns the visitor', async () => {
    const res = await request(app).get('/language?lng=de&return_to=/profile-settings');
    expect(res.status).toBe(303);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers.location).toBe('/profile-settings');
  });

  it('only same-origin paths: anything else goes to /', async () => {
    const hostile = [
      'https://evil.example/',
      '//evil.example/path',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      'http:evil.example',
      '/%0d%0aSet-Cookie:x=1',
      '/ok\r\nLocation: https://evil.example',
      'relative/path',
      '',
      'https://accounts.example.com.evil.example/',
      '/.//evil.example',
      '/%2F%2Fevil.example',
      '/%09/evil.example',
    ];
    for (const value of hostile) {
      const res = await request(app).get(`/language?lng=en&return_to=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(303);
      const location = res.headers.location!;
      expect(location === '/' || (location.startsWith('/') && !location.startsWith('//') && !location.includes('\\')), value).toBe(true);
      expect(new URL(location, 'https://accounts.example.com').origin, value).toBe('https://accounts.example.com');
    }
    expect((await request(app).get('/language?lng=en')).headers.location).toBe('/');
    expect((await request(app).get('/language?lng=en&return_to=https%3A%2F%2Fevil.example')).headers.location).toBe('/');
  });
});

describe('sameOriginPath', () => {
  it('keeps paths, queries and fragments of this site', () => {
    expect(sameOriginPath('/profile-settings?tab=password#top', 'https://a.example')).toBe('/profile-settings?tab=password#top');
    expect(sameOriginPath('/a/../b', 'https://a.example')).toBe('/b');
  });
  it('refuses everything else', () => {
    for (const value of ['//x.example', '/\\x.example', 'https://a.example/', ['/a'], undefined, `/${'a'.repeat(3000)}`]) {
      expect(sameOriginPath(value, 'https://a.example')).toBe('/');
    }
  });
});
