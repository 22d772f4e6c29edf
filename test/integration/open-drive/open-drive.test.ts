// /open-drive over HTTP: Google Drive's "Open with" / "New" state is checked strictly (a forged one is a
// translated 400, for guests too), a guest goes to sign-in and comes back with the same state, a signed-in
// user goes to the document app's /open, and with no document app configured a page lists the files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../core/routes.ts';
import { signIn, useIdentities } from '../../support/fixtures.ts';
import { Browser, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

const DOCUMENT_APP_URL = 'http://127.0.0.1:9/docs';
const FILE_A = '1AbCdEfGhIjKlMnOpQrStUv';
const FILE_B = '0B7-xyz_1234567890abc';
const USER = '103456789012345678901';

let stack: Stack;
let bare: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { DOCUMENT_APP_URL } });
  bare = await startStack(); // no DOCUMENT_APP_URL
});
afterAll(async () => {
  await bare?.close();
  await stack?.close();
});
const identities = useIdentities(() => stack.identity.adminUrl);
const bareIdentities = useIdentities(() => bare.identity.adminUrl);

const openWith = (state: unknown) => `${ROUTES.openDrive}?state=${encodeURIComponent(typeof state === 'string' ? state : JSON.stringify(state))}`;
const OPEN = { ids: [FILE_A, FILE_B], resourceKeys: { [FILE_A]: '0-abcdEFGH' }, action: 'open', userId: USER };

describe('/open-drive', () => {
  it('a guest goes to sign-in with return_to, signs in, comes back with the same state and goes on to the document app', async () => {
    const person = await identities.create();
    const browser = new Browser(stack.appUrl);
    const path = openWith(OPEN);
    const guest = await browser.get(path);
    expect(guest.status).toBe(303);
    const signInUrl = new URL(guest.location!, stack.appUrl);
    expect(signInUrl.pathname).toBe(ROUTES.signIn);
    expect(signInUrl.searchParams.get('return_to')).toBe(`${stack.appUrl}${path}`);
    const done = await signIn(browser, person.email, person.password, signInUrl.search);
    expect(done.location).toBe(`${stack.appUrl}${path}`);
    const handed = await browser.get(done.location!);
    expect(handed.status).toBe(303);
    const target = new URL(handed.location!);
    expect(`${target.origin}${target.pathname}`).toBe(`${DOCUMENT_APP_URL}/open`);
    expect(Object.fromEntries(target.searchParams)).toEqual({ ids: `${FILE_A},${FILE_B}`, action: 'open', userId: USER });
  });

  it('an account waiting for deletion (its identity marked) meets the restore offer first, with this address to come back to', async () => {
    const person = await identities.signedIn(stack.appUrl, { metadataPublic: { deletionRequestedAt: new Date().toISOString() } });
    const path = openWith(OPEN);
    const answer = await person.browser.get(path);
    expect(answer.status).toBe(303);
    const offer = new URL(answer.location!, stack.appUrl);
    expect(offer.pathname).toBe(ROUTES.profile);
    expect(offer.searchParams.get('return_to')).toBe(path);
  });

  it('"New" (action create, a folder, no ids) goes to the document app with the folder; Workspace exportIds open too', async () => {
    const person = await identities.signedIn(stack.appUrl);
    const created = await person.browser.get(openWith({ action: 'create', folderId: '0AFolder-123456', folderResourceKey: 'key-1', userId: USER }));
    expect(Object.fromEntries(new URL(created.location!).searchParams)).toEqual({ action: 'create', userId: USER, folderId: '0AFolder-123456' });
    const exported = await person.browser.get(openWith({ exportIds: [FILE_A], action: 'open', userId: USER }));
    expect(new URL(exported.location!).searchParams.get('ids')).toBe(FILE_A);
  });

  it.each([
    ['not JSON', '{ids:'],
    ['no state', undefined],
    ['an unknown action', { ...OPEN, action: 'delete' }],
    ['no ids to open', { action: 'open', userId: USER }],
    ['an empty ids list', { ...OPEN, ids: [] }],
    ['an id that is no Drive id', { ...OPEN, ids: ['../../etc/passwd'] }],
    ['a script for an id', { ...OPEN, ids: ['<script>alert(1)</script>'] }],
    ['a short id', { ...OPEN, ids: ['abc'] }],
    ['too many ids', { ...OPEN, ids: Array.from({ length: 101 }, (_, i) => `${FILE_A}${i}`) }],
    ['no user', { ids: [FILE_A], action: 'open' }],
    ['a JSON array', [FILE_A]],
  ])('%s → a translated 400, for a guest as for a signed-in user', async (_name, state) => {
    const path = state === undefined ? ROUTES.openDrive : openWith(state);
    const guest = await new Browser(stack.appUrl).get(path);
    expect(guest.status).toBe(400);
    expect(visibleText(guest.text)).toContain('This link from Google Drive is not valid.');
    expect(guest.text).not.toContain('<script>alert(1)</script>');
    const spanish = await new Browser(stack.appUrl).get(`${path}${path.includes('?') ? '&' : '?'}lng=es`);
    expect(visibleText(spanish.text)).toContain('Este enlace de Google Drive no es válido.');
    const json = await new Browser(stack.appUrl).get(path, { accept: 'application/json' });
    expect(JSON.parse(json.text)).toMatchObject({ code: 'drive_state_invalid' });
  });

  it('a state longer than the limit is a 400 too, never a hang or 5xx', async () => {
    const answer = await new Browser(stack.appUrl).get(`${ROUTES.openDrive}?state=${'x'.repeat(9000)}`);
    expect(answer.status).toBe(400);
  });

  it('with no document app configured, a signed-in user gets a page listing what would open', async () => {
    const person = await bareIdentities.signedIn(bare.appUrl);
    const page = await person.browser.get(openWith(OPEN));
    expect(page.status).toBe(200);
    const text = visibleText(page.text);
    expect(text).toContain('The document app is not available here');
    expect(text).toContain('Google Drive asked to open these files:');
    expect(text).toContain(FILE_A);
    expect(text).toContain(FILE_B);
    const created = await person.browser.get(`${openWith({ action: 'create', userId: USER })}&lng=pt`);
    expect(visibleText(created.text)).toContain('O Google Drive pediu para criar um ficheiro na pasta O meu disco.');
  });
});
