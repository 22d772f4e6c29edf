// The avatar: upload and removal under user/*, and the stored images served outside /api at /avatars/{name}.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Express } from 'express';
import { z } from 'zod';
import type { AuthContext } from '../access.ts';
import { AVATAR_MAX_BYTES, AVATAR_NAME, drain, processAvatar, readSingleFile } from '../avatar.ts';
import { withUser } from '../schemas.ts';
import { BEARER_ERRORS, errorDoc, type Route, type RouteContext } from './route.ts';

const uploadBody = z.object({ file: z.string().meta({ format: 'binary', description: 'The image (PNG or JPEG)' }) });

export function avatarRoutes({ o, accounts, access }: RouteContext): Route[] {
  const { store } = o;

  /** Keeps the identity trait avatarRemoteId in step (best effort: a schema without that trait refuses). */
  async function syncAvatarTrait(identityId: string | null, name: string | null): Promise<boolean> {
    if (!o.identityAdmin || !identityId) return false;
    try {
      const ops = name === null ? [{ op: 'remove', path: '/traits/avatarRemoteId' }] : [{ op: 'add', path: '/traits/avatarRemoteId', value: name }];
      const res = await o.identityAdmin.patchIdentity(identityId, ops);
      return res.status === 200;
    } catch (err) {
      o.logger.warn({ err }, 'could not sync avatarRemoteId to the identity');
      return false;
    }
  }

  return [
    {
      method: 'patch',
      path: '/api/user/upload-avatar',
      raw: true,
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: 'Upload the avatar',
        description:
          'multipart/form-data with exactly one file part named `file` (other text fields are ignored). At most 5,242,880 bytes; a Content-Length above that plus 64 KiB is refused before reading the body, and the stream is cut as soon as the file passes the limit. Type decided by the file signature only (PNG 89 50 4E 47 0D 0A 1A 0A, JPEG FF D8 FF); name and declared type are ignored. Dimensions are read from the header before decoding: at most 10,000 px a side and 40,000,000 px. The image is re-encoded (EXIF orientation applied, scaled to fit 512x512, never enlarged, same format) with all metadata dropped, stored under a random name `<32 hex>.png|jpg`, served at /avatars/<name>. The previous avatar file is deleted. The identity trait avatarRemoteId is updated through the admin API when possible (identitySynced).',
        body: { schema: uploadBody, required: true, contentType: 'multipart/form-data' },
        responses: {
          200: {
            description: 'Stored',
            schema: withUser({
              avatarRemoteId: z.string().regex(AVATAR_NAME),
              avatarUrl: z.url(),
              contentType: z.enum(['image/png', 'image/jpeg']),
              width: z.number().int(),
              height: z.number().int(),
              size: z.number().int(),
              identitySynced: z.boolean(),
            }),
          },
          400: errorDoc(
            'No file / wrong field / empty / not multipart; more than one file; not PNG or JPEG (or undecodable); dimensions too large; broken multipart (code: file_type_not_exist, only_one_file_allowed, valid_type, image_dimensions_too_large, invalid_multipart)',
          ),
          ...BEARER_ERRORS,
          413: errorDoc(`File larger than ${AVATAR_MAX_BYTES} bytes (meta: {maxBytes: ${AVATAR_MAX_BYTES}, maxMegabytes: 5}) (code: limit_file_size)`),
        },
      },
      async handler(req, res) {
        let ctx: AuthContext;
        try {
          ctx = await access.authenticate(req);
        } catch (err) {
          drain(req, res);
          throw err;
        }
        const file = await readSingleFile(req, res);
        const image = await processAvatar(file);
        const name = `${randomBytes(16).toString('hex')}.${image.type === 'png' ? 'png' : 'jpg'}`;
        await mkdir(o.avatarsDir, { recursive: true });
        const tmp = join(o.avatarsDir, `.${name}.tmp`);
        await writeFile(tmp, image.data, { mode: 0o644 });
        await rename(tmp, join(o.avatarsDir, name));
        const previous = store.userById(ctx.user._id)?.avatarRemoteId ?? null;
        const user = store.updateUser(ctx.user._id, { avatarRemoteId: name }, o.clock.now());
        await accounts.removeAvatarFile(previous);
        const identitySynced = await syncAvatarTrait(user.identityId, name);
        return {
          avatarRemoteId: name,
          avatarUrl: accounts.avatarUrl(name),
          contentType: image.type === 'png' ? 'image/png' : 'image/jpeg',
          width: image.width,
          height: image.height,
          size: image.data.length,
          identitySynced,
          user: accounts.userJson(user),
        };
      },
    },
    {
      method: 'patch',
      path: '/api/user/remove-avatar',
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: 'Remove the avatar',
        description: 'Clears avatarRemoteId, deletes the file, removes the identity trait when possible. Idempotent. Body ignored.',
        responses: {
          200: { description: 'Removed', schema: withUser({ avatarRemoteId: z.null(), identitySynced: z.boolean() }) },
          ...BEARER_ERRORS,
        },
      },
      async handler(req) {
        const { user } = await access.authenticate(req);
        const previous = user.avatarRemoteId;
        const updated = store.updateUser(user._id, { avatarRemoteId: null }, o.clock.now());
        await accounts.removeAvatarFile(previous);
        const identitySynced = previous ? await syncAvatarTrait(user.identityId, null) : true;
        return { avatarRemoteId: null, identitySynced, user: accounts.userJson(updated) };
      },
    },
  ];
}

const noSuchAvatar = { code: 'not_found', message: 'No such avatar' };

/** GET/HEAD /avatars/{name}: the stored images, cacheable for ever (names are random and never reused). */
export function mountAvatarFiles(app: Express, avatarsDir: string): void {
  app.get('/avatars/:name', async (req, res) => {
    const name = String(req.params.name);
    if (!AVATAR_NAME.test(name)) {
      res.status(404).json(noSuchAvatar);
      return;
    }
    let data: Buffer;
    try {
      data = await readFile(join(avatarsDir, name));
    } catch {
      res.status(404).json(noSuchAvatar);
      return;
    }
    res.setHeader('Content-Type', name.endsWith('.png') ? 'image/png' : 'image/jpeg');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Content-Disposition', 'inline');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Content-Length', String(data.length));
    res.status(200).end(req.method === 'HEAD' ? undefined : data);
  });
  app.all('/avatars/:name', (req, res) => {
    if (req.readable) req.resume();
    res.setHeader('Allow', 'GET, HEAD');
    res.status(405).json({ code: 'method_not_allowed', message: `${req.method} is not allowed here` });
  });
}
