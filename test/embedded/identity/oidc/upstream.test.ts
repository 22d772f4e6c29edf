// What goes upstream and what the continuity container keeps: upstream_parameters (v1.3.1 forwards
// login_hint, hd, prompt and auth_type; anything else is dropped), Google's offline_access, requested
// claims, the refresh's prompt=login over a posted prompt; traits and transient_payload kept in the
// container for the callback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../helpers.ts';
import { atProvider, freshEmail, social, startFlow, startOidcStack, submitToProvider, whoami, type OidcStack } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'oidc-upstream-'));
const database = join(dir, 'identity.sqlite');
let s: OidcStack;
beforeAll(async () => {
  s = await startOidcStack({
    database,
    providers: (list) =>
      list.map((p) =>
        p.id === 'google' ? { ...p, scope: ['email', 'profile', 'offline_access'], requested_claims: { id_token: { email: { essential: true } } } } : p,
      ),
  });
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('upstream_parameters', () => {
  it('forwards login_hint, hd, prompt and auth_type and drops anything else', async () => {
    const b = new Browser();
    const { id } = await startFlow(s, b, 'login');
    const upstream = {
      login_hint: 'ada@example.com',
      hd: 'example.com',
      prompt: 'select_account',
      auth_type: 'reauthenticate',
      acr_values: 'urn:x',
      foo: 'bar',
    };
    const u = new URL(await submitToProvider(s, b, 'login', id, { method: 'oidc', provider: 'google', upstream_parameters: upstream }, 'json'));
    expect(u.searchParams.get('login_hint')).toBe('ada@example.com');
    expect(u.searchParams.get('hd')).toBe('example.com');
    expect(u.searchParams.get('prompt')).toBe('select_account');
    expect(u.searchParams.get('auth_type')).toBe('reauthenticate');
    // v1.3.1 knows no acr_values (newer Kratos forwards it and drops login_hint).
    expect(u.searchParams.has('acr_values')).toBe(false);
    expect(u.searchParams.has('foo')).toBe(false);
  });

  it('as form fields (upstream_parameters.<name>)', async () => {
    const b = new Browser();
    const { id } = await startFlow(s, b, 'login');
    const u = new URL(
      await submitToProvider(s, b, 'login', id, {
        provider: 'google',
        'upstream_parameters.login_hint': 'grace@example.com',
        'upstream_parameters.nonce': 'x',
      }),
    );
    expect(u.searchParams.get('login_hint')).toBe('grace@example.com');
    expect(u.searchParams.has('nonce')).toBe(false);
    // The query is encoded as Go encodes it: keys in order.
    const keys = [...u.searchParams.keys()];
    expect(keys).toEqual([...keys].sort());
  });

  it("Google's offline_access becomes access_type=offline; requested_claims goes as claims", async () => {
    const b = new Browser();
    const { id } = await startFlow(s, b, 'registration');
    const u = new URL(await submitToProvider(s, b, 'registration', id, { provider: 'google' }));
    expect(u.searchParams.get('scope')).toBe('email profile openid');
    expect(u.searchParams.get('access_type')).toBe('offline');
    expect(JSON.parse(u.searchParams.get('claims')!)).toEqual({ id_token: { email: { essential: true } } });
    // The provider takes it all and comes back.
    expect((await atProvider(b, u.toString(), { email: freshEmail('offline') })).status).toBe(303);
  });

  it('a refresh asks for prompt=login, over a posted prompt', async () => {
    const b = new Browser();
    const email = freshEmail('refresh-prompt');
    await social(s, b, 'registration', 'dropbox', email);
    const { id } = await startFlow(s, b, 'login', '?refresh=true');
    const u = new URL(await submitToProvider(s, b, 'login', id, { provider: 'dropbox', 'upstream_parameters.prompt': 'none' }));
    expect(u.searchParams.get('prompt')).toBe('login');
  });
});

/** The continuity container the browser's cookie names (read from the stand-in's database). */
function containers(): { name: string; payload: Record<string, unknown> }[] {
  const db = new DatabaseSync(database, { readOnly: true });
  try {
    return (db.prepare("SELECT data FROM flows WHERE kind = 'continuity'").all() as { data: string }[]).map((r) => JSON.parse(r.data));
  } finally {
    db.close();
  }
}

describe('the continuity container', () => {
  it('keeps the flow, the state, the posted traits and transient_payload for the callback, which uses the traits', async () => {
    const b = new Browser();
    const email = freshEmail('transient');
    const { id } = await startFlow(s, b, 'registration');
    const url = await submitToProvider(
      s,
      b,
      'registration',
      id,
      { method: 'oidc', provider: 'dropbox', traits: { name: 'Chosen Name' }, transient_payload: { campaign: 'spring', n: 3 } },
      'json',
    );
    const state = new URL(url).searchParams.get('state');
    const mine = containers().find((c) => c.payload.state === state);
    expect(mine).toMatchObject({
      name: 'ory_kratos_oidc_auth_code_session',
      payload: { flow_id: id, state, traits: { name: 'Chosen Name' }, transient_payload: { campaign: 'spring', n: 3 } },
    });
    const done = await atProvider(b, url, { email });
    expect(done.status).toBe(303);
    // Posted traits override the provider's.
    expect((await whoami(s, b)).data.identity.traits).toMatchObject({ email, name: 'Chosen Name', loginService: 'DROPBOX' });
  });
});
