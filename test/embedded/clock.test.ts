// One test clock shared by both stand-ins drives every expiry: the tokenizer's iat/exp, the backend's
// token check, the session lifespan. Moving it replaces sleeping until a lifespan runs out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type RunningBackend } from '../../embedded/backend/index.ts';
import { createTestClock } from '../../embedded/clock.ts';
import { call, CookieJar, csrfOf, sdk, startTestIdentity } from './identity/helpers.ts';

const HOUR = 3_600_000;
const TOKEN_TTL = 1_680_000;

describe('embedded stand-ins on a test clock', () => {
  const clock = createTestClock(Date.UTC(2030, 0, 1));
  const dataDir = mkdtempSync(join(tmpdir(), 'clock-test-'));
  let identity: Awaited<ReturnType<typeof startTestIdentity>>;
  let backend: RunningBackend;

  beforeAll(async () => {
    identity = await startTestIdentity({ clock });
    backend = await startBackend({ clock, database: ':memory:', dataDir, identityPublicUrl: identity.publicUrl });
  });
  afterAll(async () => {
    await backend.close();
    await identity.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('token and session expire when the clock is advanced, not before', async () => {
    const api = sdk(identity.publicUrl, identity.adminUrl);
    await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: {
          schema_id: 'default',
          traits: { email: 'clock@example.com' },
          credentials: { password: { config: { password: 'time travel phrase' } } },
        },
      }),
    );
    const jar = new CookieJar();
    const flow = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    expect(flow.data.issued_at).toBe('2030-01-01T00:00:00.000Z');
    await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: flow.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'clock@example.com', password: 'time travel phrase', csrf_token: csrfOf(flow.data) },
      }),
    );
    const tokenize = async () => (await call(jar, api.frontend.toSession({ cookie: jar.header(), tokenizeAs: 'authorization' }))).data.tokenized as string;
    const currentUser = (token: string) => fetch(`${backend.url}/api/user/get-current-user`, { headers: { authorization: `Bearer ${token}` } });

    const token = await tokenize();
    expect(decodeJwt(token).iat).toBe(clock.now() / 1000);
    expect(decodeJwt(token).exp).toBe((clock.now() + TOKEN_TTL) / 1000);
    expect((await currentUser(token)).status).toBe(200);

    clock.advance(TOKEN_TTL + 10_000); // past exp and the backend's 5 s tolerance
    const expired = await currentUser(token);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { code: string }).code).toBe('token_expired');
    expect((await currentUser(await tokenize())).status).toBe(200);

    clock.advance(360 * HOUR); // the session lifespan (360h by default) is over
    expect((await call(jar, api.frontend.toSession({ cookie: jar.header() }))).status).toBe(401);
  });
});
