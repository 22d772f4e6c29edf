// The 30-day authentication cookie of spec §9 (decision 150): set at sign-in and at a signed-in landing
// without a fresh one, for the document app on AUTH_COOKIE_DOMAIN; the JWT is Kratos's `authentication`
// template, verified with the identity service's keys; cleared on logout. On the stand-in and real Kratos.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import express from 'express';
import request from 'supertest';
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, UnsecuredJWT } from 'jose';
import { loadConfig } from '../../../server/config.ts';
import { AUTH_COOKIE_MAX_AGE_MS, clearAuthCookies, setAuthCookie } from '../../../server/flows/app-cookies.ts';
import { signIn, useIdentities } from '../../support/fixtures.ts';
import { Browser, type Answer } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { JSON_ACCEPT } from '../api/json-flow.ts';

const NAME = 'auth_token_test'; // NODE_ENV=test: the environment's name is part of it outside production
const DOMAIN = '127.0.0.1'; // the stack's host: a domain the app's own host is within, as the check at start-up asks

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { AUTH_COOKIE_DOMAIN: DOMAIN } });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

const authCookieOf = (answer: Answer) => answer.setCookies.find((c) => c.startsWith(`${NAME}=`));
const valueOf = (setCookie: string) => setCookie.slice(NAME.length + 1, setCookie.indexOf(';'));

/** The identity service's keys: the stand-in publishes them; real Kratos's are served beside it (tokenTrust). */
function identityKeys() {
  return stack.tokenTrust.jwks ? createLocalJWKSet(stack.tokenTrust.jwks) : createRemoteJWKSet(new URL(`${stack.identity.publicUrl}/.well-known/jwks.json`));
}

describe('the authentication cookie', () => {
  test('set at sign-in: its name, attributes and domain; the JWT is the session, for the authentication audience', async () => {
    const person = await identities.create({ prefix: 'authcookie' });
    const browser = new Browser(stack.appUrl);
    const answer = await signIn(browser, person.email, person.password!);
    expect(answer.status).toBe(303);
    const cookie = authCookieOf(answer)!;
    expect(cookie).toBeDefined();
    expect(cookie).toContain(`Max-Age=${AUTH_COOKIE_MAX_AGE_MS / 1000}`);
    expect(cookie).toContain(`Domain=${DOMAIN}`);
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure'); // not production
    const { payload } = await jwtVerify(valueOf(cookie), identityKeys(), { audience: 'accounts' });
    expect(payload.sub).toBe(person.id);
    expect(payload.exp! * 1000).toBeGreaterThan(Date.now() + 10 * 60 * 1000);

    // Fresh: landing on /sign-in or home again sets nothing.
    expect(authCookieOf(await browser.get('/sign-in'))).toBeUndefined();
    expect(authCookieOf(await browser.get('/'))).toBeUndefined();
  });

  test('a signed-in browser without one (a social or One Tap sign-in), or with one near expiry, gets it on /sign-in and home', async () => {
    const { browser, id } = await identities.signedIn(stack.appUrl, { prefix: 'authcookie-landing' });
    browser.cookies.delete(NAME);
    const landing = await browser.get('/sign-in?return_to=%2F');
    expect(landing.status).toBe(303);
    const fromSignIn = authCookieOf(landing)!;
    expect((await jwtVerify(valueOf(fromSignIn), identityKeys(), { audience: 'accounts' })).payload.sub).toBe(id);

    const nearExpiry = new UnsecuredJWT({ sub: id }).setExpirationTime(Math.floor(Date.now() / 1000) + 60).encode();
    browser.cookies.set(NAME, nearExpiry);
    const home = await browser.get('/');
    expect(home.status).toBe(200);
    const fromHome = authCookieOf(home)!;
    expect(valueOf(fromHome)).not.toBe(nearExpiry);
    expect((await jwtVerify(valueOf(fromHome), identityKeys(), { audience: 'accounts' })).payload.sub).toBe(id);

    browser.cookies.set(NAME, 'not-a-jwt');
    expect(authCookieOf(await browser.get('/'))).toBeDefined();
  });

  test('a guest gets none; logout expires it on its domain', async () => {
    const guest = new Browser(stack.appUrl);
    expect(authCookieOf(await guest.get('/sign-in'))).toBeUndefined();

    const { browser } = await identities.signedIn(stack.appUrl, { prefix: 'authcookie-logout' });
    expect(browser.cookies.has(NAME)).toBe(true);
    const token = JSON.parse((await browser.get('/logout', JSON_ACCEPT)).text) as { csrf_token: string };
    const out = await browser.postJson('/logout', {}, { 'x-csrf-token': token.csrf_token });
    expect(out.status).toBe(200);
    const cleared = out.setCookies.filter((c) => c.startsWith(`${NAME}=;`));
    expect(cleared.some((c) => c.includes(`Domain=${DOMAIN}`) && /Expires=Thu, 01 Jan 1970/.test(c))).toBe(true);
    expect(browser.cookies.has(NAME)).toBe(false);
  });
});

describe('in production', () => {
  test('the cookie is named auth_token and Secure', async () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      SESSION_SECRET: 'a-production-secret-of-thirty-two-chars-or-more',
      PUBLIC_URL: 'https://accounts.example.com',
      AUTH_COOKIE_DOMAIN: 'example.com',
    });
    const app = express();
    app.get('/set', (_req, res) => void (setAuthCookie(res, config, 'jwt'), res.end()));
    app.get('/clear', (_req, res) => void (clearAuthCookies(res, config), res.end()));
    const set = (await request(app).get('/set')).headers['set-cookie'] as unknown as string[];
    expect(set).toHaveLength(1);
    expect(set[0]).toMatch(/^auth_token=jwt; Max-Age=2592000; Domain=example\.com; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
    const cleared = (await request(app).get('/clear')).headers['set-cookie'] as unknown as string[];
    expect(cleared.filter((c) => c.startsWith('auth_token=;')).map((c) => /Domain=([^;]+)/.exec(c)?.[1] ?? 'host')).toEqual(['host', 'example.com']);
  });

  test('a domain that does not cover the app is refused at start-up', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'https://accounts.example.com', AUTH_COOKIE_DOMAIN: 'example.org' })).toThrow(/AUTH_COOKIE_DOMAIN/);
  });
});
