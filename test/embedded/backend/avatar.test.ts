import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import sharp from 'sharp';
import { request as httpRequest } from 'node:http';
import { crc32, deflateSync } from 'node:zlib';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ADMIN_KEY, makeKeys, mint, startFakeAdmin, startTestBackend, type FakeAdmin, type Keys, type TestBackend } from './helpers.ts';

const MAX = 5_242_880;

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A tiny file whose PNG header claims huge dimensions (a decompression bomb shape). */
function pngWithHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('backend stand-in: avatar upload (spec §5)', () => {
  let keys: Keys;
  let admin: FakeAdmin;
  let backend: TestBackend;
  let png: Buffer;
  let jpegWithExif: Buffer;

  beforeAll(async () => {
    keys = await makeKeys();
    admin = await startFakeAdmin();
    backend = await startTestBackend({ jwks: keys.jwks, identityAdminUrl: admin.url, identityAdminApiKey: ADMIN_KEY });
    png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    jpegWithExif = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#cc6633' } })
      .jpeg()
      .withMetadata({ exif: { IFD0: { Copyright: 'SECRET-COPYRIGHT', Artist: 'SECRET-ARTIST', ImageDescription: 'GPS secret place' } } })
      .toBuffer();
  });
  afterAll(async () => {
    await backend.close();
    await admin.close();
  });

  const user = async () => {
    const email = `a${randomUUID().slice(0, 8)}@example.com`;
    const identity = admin.add(email);
    return { identity, auth: `Bearer ${await mint(keys, { sub: identity.id, email })}` };
  };
  const upload = (auth: string) => request(backend.url).patch('/api/user/upload-avatar').set('Authorization', auth);

  it('stores a PNG under a random name and serves it with an image type and nosniff', async () => {
    const u = await user();
    const res = await upload(u.auth)
      .field('avatarRemoteId', '../../etc/passwd')
      .field('identityId', 'someone-else')
      .attach('file', png, { filename: 'me.png', contentType: 'image/png' })
      .expect(200);
    expect(res.body.avatarRemoteId).toMatch(/^[a-f0-9]{32}\.png$/);
    expect(res.body).toMatchObject({ contentType: 'image/png', width: 64, height: 48, identitySynced: true });
    expect(res.body.user).toMatchObject({ identityId: u.identity.id, avatarRemoteId: res.body.avatarRemoteId });
    expect(res.body.avatarUrl).toBe(`${backend.url}/avatars/${res.body.avatarRemoteId}`);
    expect(admin.identities.get(u.identity.id)?.traits.avatarRemoteId).toBe(res.body.avatarRemoteId);
    const img = await request(backend.url).get(`/avatars/${res.body.avatarRemoteId}`).buffer(true).expect(200);
    expect(img.headers['content-type']).toBe('image/png');
    expect(img.headers['x-content-type-options']).toBe('nosniff');
    expect((await sharp(img.body as Buffer).metadata()).format).toBe('png');
    const me = await request(backend.url).get('/api/user/get-current-user').set('Authorization', u.auth).expect(200);
    expect(me.body.avatarRemoteId).toBe(res.body.avatarRemoteId);
  });

  it('re-encodes a JPEG and strips EXIF; the name and declared type do not matter', async () => {
    expect(jpegWithExif.includes(Buffer.from('SECRET-COPYRIGHT'))).toBe(true);
    expect((await sharp(jpegWithExif).metadata()).exif).toBeDefined();
    const u = await user();
    const res = await upload(u.auth).attach('file', jpegWithExif, { filename: 'photo.gif', contentType: 'text/plain' }).expect(200);
    expect(res.body.avatarRemoteId).toMatch(/^[a-f0-9]{32}\.jpg$/);
    expect(res.body).toMatchObject({ contentType: 'image/jpeg', width: 512, height: 341 });
    const stored = readFileSync(join(backend.dataDir, 'avatars', res.body.avatarRemoteId));
    expect(stored.includes(Buffer.from('Exif'))).toBe(false);
    expect(stored.includes(Buffer.from('SECRET'))).toBe(false);
    const meta = await sharp(stored).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.format).toBe('jpeg');
    const served = await request(backend.url).get(`/avatars/${res.body.avatarRemoteId}`).buffer(true).expect(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(served.body as Buffer, stored)).toBe(0);
  });

  it('refuses 5 MiB + 1 byte with limit_file_size (413) and stores nothing', async () => {
    const u = await user();
    const before = readdirSync(join(backend.dataDir, 'avatars')).length;
    const big = Buffer.concat([png, Buffer.alloc(MAX + 1 - png.length, 7)]);
    expect(big.length).toBe(MAX + 1);
    const res = await upload(u.auth).attach('file', big, { filename: 'big.png', contentType: 'image/png' });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'limit_file_size', meta: { maxBytes: MAX } });
    expect(readdirSync(join(backend.dataDir, 'avatars')).length).toBe(before);
  });

  it('a file of exactly 5 MiB is not refused for its size', async () => {
    const u = await user();
    const exact = Buffer.concat([png, Buffer.alloc(MAX - png.length, 0)]);
    const res = await upload(u.auth).attach('file', exact, { filename: 'exact.png', contentType: 'image/png' });
    expect(res.body.code).not.toBe('limit_file_size');
    expect(res.status).toBeLessThan(500);
  });

  it('refuses an oversized upload early from Content-Length, before the body is sent', async () => {
    const u = await user();
    const url = new URL('/api/user/upload-avatar', backend.url);
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(url, {
        method: 'PATCH',
        headers: {
          Authorization: u.auth,
          'Content-Type': 'multipart/form-data; boundary=XYZ',
          'Content-Length': String(200 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      // send only a little of the announced 200 MB
      req.write('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n');
      req.write(Buffer.alloc(1024));
    });
    expect(status.status).toBe(413);
    expect(JSON.parse(status.body).code).toBe('limit_file_size');
  });

  it('refuses an HTML file named .png with valid_type', async () => {
    const u = await user();
    const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
    const res = await upload(u.auth).attach('file', html, { filename: 'avatar.png', contentType: 'image/png' }).expect(400);
    expect(res.body.code).toBe('valid_type');
  });

  it('refuses a GIF with valid_type', async () => {
    const u = await user();
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } })
      .gif()
      .toBuffer();
    expect(gif.subarray(0, 3).toString('ascii')).toBe('GIF');
    const res = await upload(u.auth).attach('file', gif, { filename: 'a.png', contentType: 'image/png' }).expect(400);
    expect(res.body.code).toBe('valid_type');
  });

  it('refuses a truncated PNG (right signature, broken data) with valid_type', async () => {
    const u = await user();
    const res = await upload(u.auth).attach('file', png.subarray(0, 40), { filename: 'a.png' }).expect(400);
    expect(res.body.code).toBe('valid_type');
  });

  it('refuses two files with only_one_file_allowed', async () => {
    const u = await user();
    const res = await upload(u.auth)
      .attach('file', png, { filename: 'a.png', contentType: 'image/png' })
      .attach('file', png, { filename: 'b.png', contentType: 'image/png' })
      .expect(400);
    expect(res.body.code).toBe('only_one_file_allowed');
    const res2 = await upload(u.auth)
      .attach('file', png, { filename: 'a.png', contentType: 'image/png' })
      .attach('other', png, { filename: 'b.png', contentType: 'image/png' })
      .expect(400);
    expect(res2.body.code).toBe('only_one_file_allowed');
  });

  it('answers file_type_not_exist without a file', async () => {
    const u = await user();
    expect((await upload(u.auth).field('x', 'y').expect(400)).body.code).toBe('file_type_not_exist');
    expect((await upload(u.auth).attach('picture', png, 'a.png').expect(400)).body.code).toBe('file_type_not_exist');
    expect((await upload(u.auth).attach('file', Buffer.alloc(0), 'a.png').expect(400)).body.code).toBe('file_type_not_exist');
    expect((await upload(u.auth).send({ file: 'x' }).expect(400)).body.code).toBe('file_type_not_exist');
    expect((await upload(u.auth).expect(400)).body.code).toBe('file_type_not_exist');
  });

  it('refuses a malformed multipart body with 400', async () => {
    const u = await user();
    const res = await upload(u.auth).set('Content-Type', 'multipart/form-data').send('garbage');
    expect(res.status).toBe(400);
    const res2 = await upload(u.auth).set('Content-Type', 'multipart/form-data; boundary=abc').send('--abc\r\nbroken');
    expect(res2.status).toBe(400);
  });

  it('refuses huge dimensions from the header, before decoding', async () => {
    const u = await user();
    const bomb = pngWithHeader(100_000, 100_000);
    expect(bomb.length).toBeLessThan(4096);
    const started = Date.now();
    const res = await upload(u.auth).attach('file', bomb, { filename: 'bomb.png', contentType: 'image/png' }).expect(400);
    expect(res.body.code).toBe('image_dimensions_too_large');
    expect(Date.now() - started).toBeLessThan(2000);
    const wide = await upload(u.auth).attach('file', pngWithHeader(20_000, 10), 'wide.png').expect(400);
    expect(wide.body.code).toBe('image_dimensions_too_large');
  });

  it('requires a valid token', async () => {
    const res = await request(backend.url).patch('/api/user/upload-avatar').attach('file', png, 'a.png').expect(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('replacing an avatar deletes the old file; remove-avatar clears it', async () => {
    const u = await user();
    const first = (await upload(u.auth).attach('file', png, 'a.png').expect(200)).body.avatarRemoteId as string;
    const second = (await upload(u.auth).attach('file', png, 'b.png').expect(200)).body.avatarRemoteId as string;
    expect(second).not.toBe(first);
    expect(existsSync(join(backend.dataDir, 'avatars', first))).toBe(false);
    await request(backend.url).get(`/avatars/${first}`).expect(404);
    const removed = await request(backend.url).patch('/api/user/remove-avatar').set('Authorization', u.auth).send({ avatarRemoteId: 'keep' }).expect(200);
    expect(removed.body).toMatchObject({ avatarRemoteId: null, identitySynced: true, user: { avatarRemoteId: null, avatarUrl: null } });
    expect(existsSync(join(backend.dataDir, 'avatars', second))).toBe(false);
    expect(admin.identities.get(u.identity.id)?.traits).not.toHaveProperty('avatarRemoteId');
    // idempotent
    await request(backend.url).patch('/api/user/remove-avatar').set('Authorization', u.auth).expect(200);
  });

  it('serves only well-formed avatar names', async () => {
    for (const p of ['/avatars/..%2F..%2Fetc%2Fpasswd', '/avatars/abc.png', `/avatars/${'a'.repeat(32)}.png`, `/avatars/${'a'.repeat(32)}.svg`]) {
      const res = await request(backend.url).get(p);
      expect(res.status, p).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    const post = await request(backend.url)
      .post(`/avatars/${'a'.repeat(32)}.png`)
      .expect(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
