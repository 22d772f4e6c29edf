// How the stand-in reports an OAuth2 provider that refuses, as Kratos v1.3.1 does (observed on real
// Kratos against this same kind of stub): a refused accept after a password sign-in is a 500 "Unable to
// accept OAuth 2.0 Login Challenge." (the session cookie is already set), with the provider's status and,
// when its answer was a JSON error, its hint; the error UI's stored copy keeps herodot's debug. A 5xx
// counts as no answer (v1.3.1's client retries, then gives up): no details. A refused GET is a 400.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, Browser, startTestIdentity } from './helpers.ts';
import { OAUTH2_ADMIN_TIMEOUT_MS } from '../../../embedded/identity/oauth2.ts';
import { csrfOf, flowJson } from './oauth2-support.ts';

type Canned = { status: number; type: string; body: string };
const LOGIN_REQUEST = { challenge: 'c1', skip: false, subject: '', client: { client_id: 'x' }, requested_scope: ['openid'], session_id: 's', oidc_context: {} };
let onGet: Canned = { status: 200, type: 'application/json', body: JSON.stringify(LOGIN_REQUEST) };
let onPut: Canned = { status: 200, type: 'application/json', body: '{}' };

const stub = http.createServer((req, res) => {
  if (req.url?.includes('login_challenge=hang')) return; // never answers: the stand-in's deadline must end the wait
  const canned = req.method === 'PUT' ? onPut : onGet;
  res.writeHead(canned.status, { 'content-type': canned.type }).end(canned.body);
});
let identity: Awaited<ReturnType<typeof startTestIdentity>>;
beforeAll(async () => {
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  identity = await startTestIdentity({ config: { oauth2_provider: { url: `http://127.0.0.1:${(stub.address() as AddressInfo).port}` } } });
});
afterAll(async () => {
  await identity?.close();
  stub.closeAllConnections();
  await new Promise((resolve) => stub.close(resolve));
});

const pub = (path: string) => `${identity.publicUrl}${path}`;
const PASSWORD = 'a long enough passphrase';

async function person(): Promise<string> {
  const email = `errors.${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}@example.com`;
  const r = await fetch(`${identity.adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ schema_id: 'default', traits: { email, name: 'Ada' }, credentials: { password: { config: { password: PASSWORD } } } }),
  });
  expect(r.status).toBe(201);
  return email;
}

/** A password sign-in on a flow for the stub's challenge: JSON (the app) or a form post (a browser). */
async function signInOnChallenge(as: 'json' | 'form') {
  const email = await person();
  const b = new Browser();
  const { data: flow } = await flowJson(b, pub('/self-service/login/browser?login_challenge=c1'));
  const fields = { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(flow) };
  const r =
    as === 'form'
      ? await b.post(pub(`/self-service/login?flow=${flow.id}`), fields)
      : await fetch(pub(`/self-service/login?flow=${flow.id}`), {
          method: 'POST',
          redirect: 'manual',
          headers: { accept: 'application/json', 'content-type': 'application/json', cookie: b.jar.header() },
          body: JSON.stringify(fields),
        });
  return { r, cookies: r.headers.getSetCookie().map((c) => c.split('=')[0]) };
}

async function storedError(location: string | null) {
  expect(location).toMatch(new RegExp(`^${APP}/error\\?id=`));
  return ((await (await fetch(pub(`/self-service/errors?id=${new URL(location!).searchParams.get('id')}`))).json()) as { error: unknown }).error;
}

const ACCEPT_REFUSED = {
  code: 500,
  status: 'Internal Server Error',
  reason: 'Unable to accept OAuth 2.0 Login Challenge.',
  message: 'An internal server error occurred, please contact the system administrator',
};

describe('the provider refuses the accept', () => {
  it('a JSON OAuth2 error (400): 500 with status_code and the hint; the session cookie is set; the stored copy has the debug', async () => {
    onPut = { status: 400, type: 'application/json', body: JSON.stringify({ error: 'invalid_request', error_description: 'bad', error_hint: 'the hint' }) };
    const json = await signInOnChallenge('json');
    expect(json.r.status).toBe(500);
    expect(((await json.r.json()) as { error: unknown }).error).toEqual({ ...ACCEPT_REFUSED, details: { oauth2_error_hint: 'the hint', status_code: 400 } });
    expect(json.cookies).toContain('ory_kratos_session');
    const form = await signInOnChallenge('form');
    expect(form.r.status).toBe(303);
    expect(await storedError(form.r.headers.get('location'))).toEqual({
      ...ACCEPT_REFUSED,
      debug: '400 Bad Request',
      details: { oauth2_error_hint: 'the hint', status_code: 400 },
    });
  });

  it('an answer that is not JSON (409): the status only; debug "undefined response type"', async () => {
    onPut = { status: 409, type: 'text/plain', body: 'conflict' };
    const form = await signInOnChallenge('form');
    expect(await storedError(form.r.headers.get('location'))).toEqual({ ...ACCEPT_REFUSED, debug: 'undefined response type', details: { status_code: 409 } });
  });

  it('a 5xx counts as no answer: no details', async () => {
    onPut = { status: 503, type: 'application/json', body: '{"error":"x"}' };
    const json = await signInOnChallenge('json');
    expect(((await json.r.json()) as { error: unknown }).error).toEqual(ACCEPT_REFUSED);
  });
});

describe('the provider refuses the login request', () => {
  it('a handled challenge (410 with redirect_to): 400 with the status only', async () => {
    onGet = { status: 410, type: 'application/json', body: JSON.stringify({ redirect_to: 'http://elsewhere/' }) };
    try {
      const { status, data } = await flowJson(new Browser(), pub('/self-service/login/browser?login_challenge=c1'));
      expect(status).toBe(400);
      expect(data.error).toEqual({
        code: 400,
        status: 'Bad Request',
        reason: 'Unable to get OAuth 2.0 Login Challenge.',
        details: { status_code: 410 },
        message: 'The request was malformed or contained invalid parameters',
      });
    } finally {
      onGet = { status: 200, type: 'application/json', body: JSON.stringify(LOGIN_REQUEST) };
    }
  });

  it('a provider that never answers: the call gives up at its deadline, a 500 without details', { timeout: OAUTH2_ADMIN_TIMEOUT_MS + 15_000 }, async () => {
    const started = Date.now();
    const { status, data } = await flowJson(new Browser(), pub('/self-service/login/browser?login_challenge=hang'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(OAUTH2_ADMIN_TIMEOUT_MS - 100);
    expect(status).toBe(500);
    expect(data.error).toEqual({
      code: 500,
      status: 'Internal Server Error',
      reason: 'Unable to get OAuth 2.0 Login Challenge.',
      message: 'An internal server error occurred, please contact the system administrator',
    });
  });
});
