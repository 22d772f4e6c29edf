// A restart on a file database keeps identities, sessions, flows, the cookie secret and the signing key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { globalAgent } from 'node:http';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { call, CookieJar, csrfOf, sdk, startTestIdentity } from './helpers.ts';

describe('restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-restart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a registered identity, its session, open flows and the tokenizer key', async () => {
    const database = join(dir, 'data', 'identity.sqlite');
    const first = await startTestIdentity({ database });
    const jar = new CookieJar();
    let api = sdk(first.publicUrl, first.adminUrl);
    let r = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: {
          method: 'password',
          traits: { email: 'restart@example.com', name: 'Re' },
          password: 'a sturdy passphrase',
          csrf_token: csrfOf(r.data),
        },
      }),
    );
    expect(r.status).toBe(200);
    const identityId = r.data.identity.id;
    r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'restart@example.com', password: 'a sturdy passphrase', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    const sessionId = r.data.session.id;
    const settings = await call(jar, api.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
    const jwks1 = await (await fetch(`${first.publicUrl}/.well-known/jwks.json`)).json();
    const ports = { publicPort: Number(new URL(first.publicUrl).port), adminPort: Number(new URL(first.adminUrl).port) };
    await first.close();
    // The second service listens on the same ports: wait until the SDK's keep-alive pool (Node's global
    // agent) has dropped the sockets the first one closed, so no request goes out on a dead socket.
    const toFirst = (name: string) => [ports.publicPort, ports.adminPort].some((port) => name.includes(`:${port}:`));
    await vi.waitFor(() => expect(Object.keys(globalAgent.freeSockets).filter(toFirst)).toEqual([]), { timeout: 5000, interval: 5 });

    const second = await startTestIdentity({ database, ...ports });
    try {
      api = sdk(second.publicUrl, second.adminUrl);
      r = await call(jar, api.frontend.toSession({ cookie: jar.header() }));
      expect(r.status).toBe(200);
      expect(r.data.id).toBe(sessionId);
      expect(r.data.identity.id).toBe(identityId);
      r = await call(undefined, api.identity.getIdentity({ id: identityId }));
      expect(r.data.traits).toEqual({ email: 'restart@example.com', name: 'Re' });
      r = await call(jar, api.frontend.getSettingsFlow({ id: settings.data.id, cookie: jar.header() }));
      expect(r.status).toBe(200);
      expect(await (await fetch(`${second.publicUrl}/.well-known/jwks.json`)).json()).toEqual(jwks1);
      // The password still verifies.
      const jar2 = new CookieJar();
      r = await call(jar2, api.frontend.createBrowserLoginFlow({ cookie: jar2.header() }));
      r = await call(
        jar2,
        api.frontend.updateLoginFlow({
          flow: r.data.id,
          cookie: jar2.header(),
          updateLoginFlowBody: { method: 'password', identifier: 'restart@example.com', password: 'a sturdy passphrase', csrf_token: csrfOf(r.data) },
        }),
      );
      expect(r.status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
