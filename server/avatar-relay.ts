// Reads an avatar upload from the browser and streams it on to the backend without ever holding
// the whole file: the spec §5 checks (size, one file, PNG/JPEG by signature) happen on the way
// through, and the backend checks again. Our CSRF token travels in the same multipart body (a plain
// form without JavaScript has nowhere else to put it), so it must arrive before the file.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import busboy from 'busboy';
import { AVATAR_MAX_BYTES, AVATAR_MAX_MEGABYTES, SIGNATURE_BYTES, sniffImageType } from '../core/avatar.ts';
import { AppError, ERROR_CODES, type ErrorMeta } from '../core/errors.ts';

export { AVATAR_MAX_BYTES, sniffImageType };

/** Room for boundaries, part headers and the CSRF field when judging a declared Content-Length. */
const MULTIPART_OVERHEAD = 64 * 1024;
/** After refusing an upload we discard at most this much more of it before closing the connection. */
const DRAIN_CAP = 16 * 1024 * 1024;
/** Spec §5 avatar error keys, plus the two ways a request can be malformed or forged. */
export type AvatarErrorCode = 'limit_file_size' | 'only_one_file_allowed' | 'valid_type' | 'file_type_not_exist' | 'invalid_multipart' | 'csrf_invalid';

const refusal = (status: number, code: AvatarErrorCode, message: string, meta: ErrorMeta = {}) => new AppError(status, code, message, meta);

const errors = {
  tooLarge: () =>
    refusal(413, 'limit_file_size', `The file is larger than ${AVATAR_MAX_MEGABYTES} MB`, { maxBytes: AVATAR_MAX_BYTES, maxMegabytes: AVATAR_MAX_MEGABYTES }),
  oneFile: () => refusal(400, 'only_one_file_allowed', 'Only one file can be uploaded at a time'),
  badType: () => refusal(400, 'valid_type', 'The file must be a PNG or JPEG image'),
  noFile: () => refusal(400, 'file_type_not_exist', 'No file was chosen'),
  malformed: () => refusal(400, 'invalid_multipart', 'The upload could not be read'),
  csrf: () => refusal(403, ERROR_CODES.csrfInvalid, 'The form has expired; reload the page and try again'),
};

export type ForwardedUpload = { body: ReadableStream<Uint8Array>; contentType: string };

export type RelayOptions<T> = {
  /** Checks our CSRF token; `headerToken` is the X-CSRF-Token header, `fieldToken` the form field. */
  verifyCsrf: (token: string | undefined) => boolean;
  headerToken?: string;
  csrfField: string;
  /** Sends the re-wrapped multipart body to the backend; aborted through `signal` when the upload is refused half-way. */
  forward: (upload: ForwardedUpload, signal: AbortSignal) => Promise<T>;
};

/**
 * Resolves with what `forward` resolved; rejects with an AppError: our refusal of the upload (an
 * AvatarErrorCode), or whatever `forward` rejected with (the backend client's AppError).
 *
 * Nothing here may throw outside the request: every stream we are handed or make (the request, the
 * parser, busboy's file stream, the re-wrapped body) has an error listener, since a body that ends
 * before its closing boundary makes busboy destroy the file stream with an error.
 */
export function relayAvatarUpload<T>(req: IncomingMessage, res: ServerResponse, options: RelayOptions<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const refuse = (error: Error) => {
      drain(req, res);
      reject(error);
    };
    if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) return refuse(errors.noFile());
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > AVATAR_MAX_BYTES + MULTIPART_OVERHEAD) return refuse(errors.tooLarge());

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // busboy reports 'limit' on reaching fileSize, so one byte more lets exactly 5 MiB through.
        limits: { files: 1, fileSize: AVATAR_MAX_BYTES + 1, fields: 8, fieldSize: 4096, parts: 10, headerPairs: 20 },
      });
    } catch {
      return refuse(errors.malformed());
    }

    let csrfOk = options.headerToken !== undefined && options.verifyCsrf(options.headerToken);
    let settled = false;
    let sawFile = false;
    let fileDone = false;
    let parserDone = false;
    let out: PassThrough | null = null;
    let forwarding: Promise<T> | null = null;
    const abort = new AbortController();
    const boundary = `----avatar${randomBytes(12).toString('hex')}`;

    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      abort.abort();
      out?.destroy();
      req.unpipe(parser);
      parser.removeAllListeners();
      // What the parser still holds or finds in the chunk at hand is discarded, and its errors with it.
      parser.on('error', () => {});
      parser.on('file', (_name, stream) => stream.on('error', () => {}).resume());
      forwarding?.catch(() => {});
      refuse(error);
    };

    // The closing boundary goes out only once the browser's whole body is read: until then the
    // backend cannot accept the file, so a second file or an oversize found later still cancels it.
    const finish = () => {
      if (settled || !fileDone || !parserDone || !out || !forwarding) return;
      settled = true;
      out.end(`\r\n--${boundary}--\r\n`);
      forwarding.then(resolve, reject);
    };

    parser.on('field', (name, value) => {
      if (name === options.csrfField && !csrfOk) csrfOk = options.verifyCsrf(value);
    });

    parser.on('file', (name, stream) => {
      // Before anything else: a body cut off inside this part errors the file stream.
      stream.on('error', () => fail(errors.malformed()));
      if (settled) return void stream.resume();
      if (name !== 'file') {
        stream.resume();
        return fail(sawFile ? errors.oneFile() : errors.malformed());
      }
      if (sawFile) {
        stream.resume();
        return fail(errors.oneFile());
      }
      sawFile = true;
      if (!csrfOk) {
        stream.resume();
        return fail(errors.csrf());
      }
      const head: Buffer[] = [];
      let headLength = 0;
      let size = 0;
      stream.on('limit', () => fail(errors.tooLarge()));
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        // The parser may refuse the upload (a second file) before this file's data is delivered.
        if (settled) return void stream.resume();
        if (out) return;
        head.push(chunk);
        headLength += chunk.length;
        if (headLength >= SIGNATURE_BYTES) start();
      };
      const start = () => {
        const first = Buffer.concat(head);
        const type = sniffImageType(first);
        if (!type) {
          stream.resume();
          return fail(errors.badType());
        }
        out = new PassThrough();
        // Its failures reach us as the rejection of `forward`, which reads it.
        out.on('error', () => {});
        const filename = type === 'png' ? 'avatar.png' : 'avatar.jpg';
        out.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` + `Content-Type: image/${type}\r\n\r\n`);
        out.write(first);
        stream.off('data', onData);
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
        });
        stream.pipe(out, { end: false });
        forwarding = options.forward(
          { body: Readable.toWeb(out) as ReadableStream<Uint8Array>, contentType: `multipart/form-data; boundary=${boundary}` },
          abort.signal,
        );
        // A backend that answers early (refusal) settles the upload at once.
        forwarding.then(
          (value) => {
            if (!settled) {
              settled = true;
              drain(req, res);
              resolve(value);
            }
          },
          (error: unknown) => {
            if (!settled) fail(error as Error);
          },
        );
      };
      stream.on('data', onData);
      stream.on('end', () => {
        if (settled) return;
        if ((stream as { truncated?: boolean }).truncated) return fail(errors.tooLarge());
        if (size === 0) return fail(errors.noFile());
        // Shorter than a PNG signature: no image we accept.
        if (!out) return fail(errors.badType());
        fileDone = true;
        finish();
      });
    });

    parser.on('filesLimit', () => fail(errors.oneFile()));
    parser.on('partsLimit', () => fail(errors.malformed()));
    parser.on('fieldsLimit', () => fail(errors.malformed()));
    parser.on('error', () => fail(errors.malformed()));
    parser.on('close', () => {
      if (settled) return;
      if (!sawFile) return fail(csrfOk ? errors.noFile() : errors.csrf());
      parserDone = true;
      finish();
    });
    req.on('error', () => fail(errors.malformed()));
    // The browser went away mid-upload: cancel the backend call rather than wait for a body that never ends.
    req.on('close', () => {
      if (!req.complete) fail(errors.malformed());
    });
    req.pipe(parser);
  });
}

/** Discards the rest of a refused upload so the browser can read our answer; gives up past a cap. */
function drain(req: IncomingMessage, res: ServerResponse): void {
  if (req.readableEnded) return;
  res.setHeader('Connection', 'close');
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_CAP) req.socket.destroy();
  });
  req.on('error', () => {});
  req.resume();
}
