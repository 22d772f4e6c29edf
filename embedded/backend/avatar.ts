// Avatar upload: streamed multipart parsing with hard limits, signature sniffing,
// header-only dimension check, then a full re-encode that drops all metadata.
import busboy from 'busboy';
import sharp, { type Metadata } from 'sharp';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors.ts';

export const AVATAR_MAX_BYTES = 5_242_880;
/** Largest accepted width or height, read from the image header before any decoding. */
export const AVATAR_MAX_SIDE = 10_000;
/** Largest accepted pixel count (also sharp's limitInputPixels). */
export const AVATAR_MAX_PIXELS = 40_000_000;
/** Stored avatars are scaled down to fit this box (never enlarged). */
export const AVATAR_OUTPUT_SIDE = 512;
/** Slack for multipart boundaries and part headers when judging Content-Length. */
const MULTIPART_OVERHEAD = 64 * 1024;
/** After refusing an upload we drain (discard) at most this much more before closing the socket. */
const DRAIN_CAP = 16 * 1024 * 1024;

export type AvatarType = 'png' | 'jpeg';

const tooLarge = () =>
  new ApiError(413, 'limit_file_size', `The file is larger than ${AVATAR_MAX_BYTES} bytes (5 MB)`, {
    maxBytes: AVATAR_MAX_BYTES,
    maxMegabytes: 5,
  });
const oneFile = () => new ApiError(400, 'only_one_file_allowed', 'Only one file can be uploaded at a time');
const noFile = () => new ApiError(400, 'file_type_not_exist', 'No file was sent in the multipart field "file"');
const badType = () => new ApiError(400, 'valid_type', 'The file must be a PNG or JPEG image', { allowed: ['image/png', 'image/jpg', 'image/jpeg'] });

/** Discards the rest of the request body (without keeping it) so the client can read our answer; closes past a cap. */
export function drain(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_CAP) req.socket.destroy();
  });
  req.on('error', () => {});
  req.resume();
}

/** Reads exactly one file from the multipart field `file`, refusing early on size or count. */
export function readSingleFile(req: IncomingMessage, res: ServerResponse): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const contentType = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data/i.test(contentType)) {
      drain(req, res);
      reject(noFile());
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > AVATAR_MAX_BYTES + MULTIPART_OVERHEAD) {
      drain(req, res);
      reject(tooLarge());
      return;
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        // busboy signals 'limit' once a file reaches fileSize bytes, so allow one more and refuse past the maximum.
        limits: { files: 1, fileSize: AVATAR_MAX_BYTES + 1, fields: 20, fieldSize: 4096, parts: 24, headerPairs: 20 },
      });
    } catch {
      drain(req, res);
      reject(new ApiError(400, 'invalid_multipart', 'The multipart body could not be parsed'));
      return;
    }
    let settled = false;
    let file: Buffer | null = null;
    let wrongField = false;
    const fail = (err: ApiError) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      bb.removeAllListeners();
      bb.on('error', () => {});
      drain(req, res);
      reject(err);
    };
    bb.on('file', (name, stream) => {
      if (name !== 'file') {
        wrongField = true;
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > AVATAR_MAX_BYTES) return fail(tooLarge());
        chunks.push(chunk);
      });
      stream.on('limit', () => fail(tooLarge()));
      stream.on('end', () => {
        if (!settled && !(stream as { truncated?: boolean }).truncated && size <= AVATAR_MAX_BYTES) {
          file = Buffer.concat(chunks, size);
        }
      });
    });
    bb.on('filesLimit', () => fail(oneFile()));
    bb.on('partsLimit', () => fail(new ApiError(400, 'invalid_multipart', 'Too many multipart parts')));
    bb.on('fieldsLimit', () => fail(new ApiError(400, 'invalid_multipart', 'Too many multipart fields')));
    bb.on('error', () => fail(new ApiError(400, 'invalid_multipart', 'The multipart body could not be parsed')));
    bb.on('close', () => {
      if (settled) return;
      if (wrongField && file) return fail(oneFile());
      if (!file || (file as Buffer).length === 0) return fail(noFile());
      settled = true;
      resolve(file);
    });
    req.on('error', () => fail(new ApiError(400, 'invalid_multipart', 'The upload was interrupted')));
    req.pipe(bb);
  });
}

/** Decides the type from the file signature (magic bytes) only. */
export function sniffImageType(buf: Buffer): AvatarType | null {
  if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'jpeg';
  return null;
}

export interface ProcessedAvatar {
  type: AvatarType;
  data: Buffer;
  width: number;
  height: number;
}

/** Validates and re-encodes an avatar. Metadata (EXIF, ICC, XMP, text chunks) is not carried over. */
export async function processAvatar(input: Buffer): Promise<ProcessedAvatar> {
  const type = sniffImageType(input);
  if (!type) throw badType();
  let meta: Metadata;
  try {
    // metadata() parses the header only; no pixel is decoded here.
    meta = await sharp(input, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch {
    throw badType();
  }
  if (meta.format !== type || !meta.width || !meta.height) throw badType();
  if (meta.width > AVATAR_MAX_SIDE || meta.height > AVATAR_MAX_SIDE || meta.width * meta.height > AVATAR_MAX_PIXELS) {
    throw new ApiError(400, 'image_dimensions_too_large', 'The image dimensions are too large', {
      maxSide: AVATAR_MAX_SIDE,
      maxPixels: AVATAR_MAX_PIXELS,
    });
  }
  try {
    const pipeline = sharp(input, { limitInputPixels: AVATAR_MAX_PIXELS, failOn: 'error', sequentialRead: true })
      .rotate() // apply the EXIF orientation before the orientation tag is dropped
      .resize(AVATAR_OUTPUT_SIDE, AVATAR_OUTPUT_SIDE, { fit: 'inside', withoutEnlargement: true });
    const out =
      type === 'png'
        ? await pipeline.png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true })
        : await pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 88 }).toBuffer({ resolveWithObject: true });
    return { type, data: out.data, width: out.info.width, height: out.info.height };
  } catch {
    throw badType();
  }
}

export const AVATAR_NAME = /^[a-f0-9]{32}\.(png|jpg)$/;
