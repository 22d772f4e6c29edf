import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { multipart, postMultipart } from '../../support/http.ts';
import { GIF, HTML_AS_PNG, makePng, pngChunkTypes } from './images.ts';
import { openProfile, startProfileStack, useProfileUsers, type ProfileStack, type SignedIn } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

const MAX = 5_242_880;
const uploadsSeen = () => env.backendProxy.seen.filter((s) => s.path === '/api/user/upload-avatar').length;

async function user(): Promise<SignedIn> {
  return users.signedIn({ prefix: 'avatar' });
}

function upload(
  u: SignedIn,
  file: { data: Buffer; filename: string; type?: string },
  options: { json?: boolean; csrf?: string | null; extraFile?: boolean } = {},
) {
  const parts = [
    ...(options.csrf === null ? [] : [{ name: '_csrf', value: options.csrf ?? u.csrf }]),
    { name: 'file', filename: file.filename, type: file.type ?? 'image/png', data: file.data },
    ...(options.extraFile ? [{ name: 'file', filename: 'second.png', type: 'image/png', data: makePng() }] : []),
  ];
  const flow = new URL(u.settingsAction, env.appUrl).search;
  return postMultipart(env.appUrl, u.browser.cookieHeader(), `/profile-settings/avatar${flow}`, parts, options.json ? { accept: 'application/json' } : {});
}

async function currentAvatarUrl(u: SignedIn): Promise<string | null> {
  const answer = await u.browser.get('/profile-settings', { accept: 'application/json' });
  return (JSON.parse(answer.text) as { user: { avatarUrl: string | null } }).user.avatarUrl;
}

describe('avatar upload', () => {
  test('a PNG (plain form) is stored re-encoded without its metadata and shown on the page and in the header', async () => {
    const u = await user();
    const marker = 'secret-camera-serial-4711';
    const answer = await upload(u, { data: makePng({ width: 64, height: 48, text: marker }), filename: 'me.png' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(u.settingsAction);
    const page = await u.browser.follow(answer.location!);
    expect(page.text).toContain('Your profile picture has been updated.');
    const sources = [...page.text.matchAll(/<img class="avatar__img" src="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(2); // header and avatar section
    expect(new Set(sources).size).toBe(1);
    expect(sources[0]).toMatch(/\/avatars\/[a-f0-9]{32}\.png$/);
    const stored = await fetch(sources[0]!);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toBe('image/png');
    expect(stored.headers.get('x-content-type-options')).toBe('nosniff');
    const bytes = Buffer.from(await stored.arrayBuffer());
    expect(pngChunkTypes(bytes)).not.toContain('eXIf');
    expect(pngChunkTypes(bytes)).not.toContain('tEXt');
    expect(bytes.includes(Buffer.from(marker))).toBe(false);
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height]).toEqual([64, 48]);
    // The remove form is offered now.
    expect(page.text).toMatch(/<form id="avatar-remove-form"(?![^>]*hidden)/);
  });

  test('a JPEG with EXIF (JSON) comes back without it', async () => {
    const u = await user();
    const marker = 'exif-owner-marker-9931';
    const jpeg = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#3366cc' } })
      .jpeg()
      .withExif({ IFD0: { Copyright: marker, Artist: marker } })
      .toBuffer();
    expect(jpeg.includes(Buffer.from(marker))).toBe(true);
    const answer = await upload(u, { data: jpeg, filename: 'photo.jpg', type: 'image/jpeg' }, { json: true });
    expect(answer.status).toBe(200);
    const body = answer.json() as { avatarUrl: string; avatarRemoteId: string; redirect_to: string };
    expect(body.avatarUrl).toMatch(/\/avatars\/[a-f0-9]{32}\.jpg$/);
    const bytes = Buffer.from(await (await fetch(body.avatarUrl)).arrayBuffer());
    expect(bytes.includes(Buffer.from(marker))).toBe(false);
    expect(bytes.includes(Buffer.from('Exif\0\0'))).toBe(false);
    expect((await sharp(bytes).metadata()).exif).toBeUndefined();
    expect(await currentAvatarUrl(u)).toBe(body.avatarUrl);
  });

  test('5 MiB + 1 byte is refused with limit_file_size and a message naming the limit in MB', async () => {
    const u = await user();
    const png = makePng();
    const big = Buffer.concat([png, Buffer.alloc(MAX + 1 - png.length)]);
    expect(big.length).toBe(MAX + 1);
    const json = await upload(u, { data: big, filename: 'big.png' }, { json: true });
    expect(json.status).toBe(413);
    expect(json.json()).toMatchObject({ code: 'limit_file_size', message: 'The image is too large. The maximum size is 5 MB.' });
    const page = await upload(u, { data: big, filename: 'big.png' });
    expect(page.status).toBe(413);
    expect(page.text).toContain('The image is too large. The maximum size is 5 MB.');
    expect(page.text).toContain('id="avatar-upload-form"');
    // Shown at the upload's address, which answers no GET: the language switcher leads back to the page itself.
    const returnTo = /<form class="lang-switcher[\s\S]*?name="return_to" value="([^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&');
    expect(returnTo).toMatch(/^\/profile-settings\?flow=[0-9a-f-]{36}$/);
    // The file streams on while it is read; the cut comes before its end, so the backend never gets a whole one.
    expect(await currentAvatarUrl(u)).toBeNull();
  });

  test('exactly 5 MiB is accepted', async () => {
    const u = await user();
    const png = makePng();
    // A PNG may carry trailing bytes after IEND; decoders stop at IEND.
    const exact = Buffer.concat([png, Buffer.alloc(MAX - png.length)]);
    const answer = await upload(u, { data: exact, filename: 'exact.png' }, { json: true });
    expect(answer.status).toBe(200);
  });

  test.each([
    ['an HTML file named .png', HTML_AS_PNG, 'page.png', 'image/png'],
    ['a GIF', GIF, 'anim.gif', 'image/gif'],
  ])('%s is refused with valid_type before reaching the backend', async (_name, data, filename, type) => {
    const u = await user();
    const before = uploadsSeen();
    const answer = await upload(u, { data, filename, type }, { json: true });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'valid_type', message: 'Please choose a PNG or JPEG image.' });
    expect(uploadsSeen()).toBe(before);
    const page = await upload(u, { data, filename, type });
    expect(page.status).toBe(400);
    expect(page.text).toContain('Please choose a PNG or JPEG image.');
  });

  test('two files are refused with only_one_file_allowed and nothing is stored', async () => {
    const u = await user();
    const answer = await upload(u, { data: makePng(), filename: 'one.png' }, { json: true, extraFile: true });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'only_one_file_allowed', message: 'Please upload one file at a time.' });
    expect(await currentAvatarUrl(u)).toBeNull();
  });

  test('no file at all is file_type_not_exist', async () => {
    const u = await user();
    const flow = new URL(u.settingsAction, env.appUrl).search;
    const answer = await postMultipart(env.appUrl, u.browser.cookieHeader(), `/profile-settings/avatar${flow}`, [{ name: '_csrf', value: u.csrf }], {
      accept: 'application/json',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'file_type_not_exist' });
  });

  test('an upload without our CSRF token, or with a wrong one, is refused', async () => {
    const u = await user();
    const before = uploadsSeen();
    expect((await upload(u, { data: makePng(), filename: 'a.png' }, { json: true, csrf: null })).status).toBe(403);
    const wrong = await upload(u, { data: makePng(), filename: 'a.png' }, { json: true, csrf: 'f'.repeat(64) });
    expect(wrong.status).toBe(403);
    expect(wrong.json()).toMatchObject({ code: 'csrf_invalid' });
    expect(uploadsSeen()).toBe(before);
  });

  test('signed out, the upload goes to sign-in', async () => {
    const { body, contentType } = multipart([{ name: 'file', filename: 'a.png', data: makePng() }]);
    const answer = await fetch(`${env.appUrl}/profile-settings/avatar`, { method: 'POST', headers: { 'content-type': contentType }, body, redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toMatch(/^\/sign-in\?return_to=/);
  });
});

describe('avatar removal', () => {
  test('removes the picture (JSON with the header token, then the page form)', async () => {
    const u = await user();
    expect((await upload(u, { data: makePng(), filename: 'a.png' }, { json: true })).status).toBe(200);
    expect(await currentAvatarUrl(u)).not.toBeNull();
    const refused = await u.browser.postJson('/profile-settings/avatar/remove', {});
    expect(refused.status).toBe(403);
    expect(await currentAvatarUrl(u)).not.toBeNull();
    const removed = await u.browser.postJson('/profile-settings/avatar/remove', {}, { 'x-csrf-token': u.csrf });
    expect(removed.status).toBe(200);
    expect(JSON.parse(removed.text)).toMatchObject({ avatarRemoteId: null, avatarUrl: null });
    expect(await currentAvatarUrl(u)).toBeNull();

    expect((await upload(u, { data: makePng(), filename: 'b.png' })).status).toBe(303);
    const { csrf } = await openProfile(u.browser);
    const flow = new URL(u.settingsAction, env.appUrl).search;
    const viaForm = await u.browser.post(`/profile-settings/avatar/remove${flow}`, { _csrf: csrf });
    expect(viaForm.status).toBe(303);
    const page = await u.browser.follow(viaForm.location!);
    expect(page.text).toContain('Your profile picture has been removed.');
    expect(page.text).not.toContain('class="avatar__img"');
  });
});
