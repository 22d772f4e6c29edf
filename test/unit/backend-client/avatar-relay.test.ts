import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppError } from '../../../core/errors.ts';
import { AVATAR_MAX_BYTES, relayAvatarUpload, sniffImageType } from '../../../server/avatar-relay.ts';
import { GIF, HTML_AS_PNG, makePng } from '../../integration/profile/images.ts';

// The relay between the browser's multipart upload and the backend, driven over real HTTP.
const forwarded = { calls: 0, aborted: 0, bodies: [] as Buffer[], contentTypes: [] as string[], settled: [] as string[] };
let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    relayAvatarUpload(req, res, {
      verifyCsrf: (token) => token === 'good-token',
      headerToken: req.headers['x-csrf-token'] as string | undefined,
      csrfField: '_csrf',
      forward: async (upload, signal) => {
        forwarded.calls += 1;
        forwarded.contentTypes.push(upload.contentType);
        const reader = upload.body.getReader();
        signal.addEventListener('abort', () => {
          forwarded.aborted += 1;
          void reader.cancel().catch(() => {});
        });
        const chunks: Uint8Array[] = [];
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(value);
        }
        if (signal.aborted) throw new Error('aborted');
        const body = Buffer.concat(chunks);
        forwarded.bodies.push(body);
        return { received: body.length };
      },
    }).then(
      (value) => {
        forwarded.settled.push('ok');
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(value));
      },
      (error: unknown) => {
        const e = error as AppError;
        forwarded.settled.push(e.code ?? 'crash');
        res.writeHead(e.status ?? 500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: e.code ?? 'crash' }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  forwarded.calls = 0;
  forwarded.aborted = 0;
  forwarded.bodies = [];
  forwarded.contentTypes = [];
  forwarded.settled = [];
});

type Part = { name: string; value?: string; filename?: string; type?: string; data?: Buffer };
const BOUNDARY = 'testboundary1234';

function multipart(parts: Part[]): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    pieces.push(Buffer.from(`${head}\r\n\r\n`), part.data ?? Buffer.from(part.value ?? ''), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

/** Posts a body; `chunked` sends it without Content-Length, in 64 KiB pieces. */
function post(body: Buffer, options: { chunked?: boolean; headers?: Record<string, string>; contentType?: string } = {}) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const headers: Record<string, string> = {
      'Content-Type': options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`,
      ...options.headers,
    };
    if (!options.chunked) headers['Content-Length'] = String(body.length);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
    });
    // The server may answer and close before the whole upload is written: that is the point.
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'EPIPE' || (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error),
    );
    if (options.chunked) {
      let offset = 0;
      const writeMore = () => {
        while (offset < body.length) {
          const piece = body.subarray(offset, offset + 65536);
          offset += piece.length;
          if (!req.write(piece)) return void req.once('drain', writeMore);
        }
        req.end();
      };
      writeMore();
    } else {
      req.end(body);
    }
  });
}

const csrf = { name: '_csrf', value: 'good-token' };

describe('sniffImageType', () => {
  it('decides by the first bytes', () => {
    expect(sniffImageType(makePng())).toBe('png');
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]))).toBe('jpeg');
    expect(sniffImageType(GIF)).toBeNull();
    expect(sniffImageType(HTML_AS_PNG)).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
  });
});

describe('relayAvatarUpload', () => {
  it('streams a PNG to the backend re-wrapped as the only part, under a fresh boundary', async () => {
    const png = makePng({ width: 40, height: 30 });
    const result = await post(multipart([csrf, { name: 'file', filename: '../../evil name.png', type: 'text/html', data: png }]));
    expect(result).toEqual({ status: 200, body: { received: forwarded.bodies[0]!.length } });
    const body = forwarded.bodies[0]!;
    const boundary = /boundary=(.+)$/.exec(forwarded.contentTypes[0]!)![1]!;
    expect(boundary).not.toBe(BOUNDARY);
    const text = body.toString('latin1');
    // Our own file name and the type by signature, never the browser's.
    expect(text).toContain('Content-Disposition: form-data; name="file"; filename="avatar.png"\r\nContent-Type: image/png\r\n\r\n');
    expect(text).not.toContain('evil');
    expect(text).not.toContain('_csrf');
    const start = body.indexOf('\r\n\r\n') + 4;
    const end = body.lastIndexOf(`\r\n--${boundary}--`);
    expect(body.subarray(start, end).equals(png)).toBe(true);
  });

  it('accepts the CSRF token from the X-CSRF-Token header', async () => {
    const result = await post(multipart([{ name: 'file', filename: 'a.png', data: makePng() }]), { headers: { 'X-CSRF-Token': 'good-token' } });
    expect(result.status).toBe(200);
  });

  it('refuses a file without a valid CSRF token before it, without forwarding anything', async () => {
    const late = await post(multipart([{ name: 'file', filename: 'a.png', data: makePng() }, csrf]));
    expect(late).toEqual({ status: 403, body: { code: 'csrf_invalid' } });
    const wrong = await post(
      multipart([
        { name: '_csrf', value: 'forged' },
        { name: 'file', filename: 'a.png', data: makePng() },
      ]),
    );
    expect(wrong).toEqual({ status: 403, body: { code: 'csrf_invalid' } });
    expect(forwarded.calls).toBe(0);
  });

  it('refuses 5 MiB + 1 byte from its declared length at once', async () => {
    const big = Buffer.concat([makePng(), Buffer.alloc(AVATAR_MAX_BYTES + 1 - makePng().length + 70_000)]);
    const result = await post(multipart([csrf, { name: 'file', filename: 'big.png', data: big }]));
    expect(result).toEqual({ status: 413, body: { code: 'limit_file_size' } });
    expect(forwarded.calls).toBe(0);
  });

  it('refuses 5 MiB + 1 byte sent without a length, cancelling the half-sent backend upload', async () => {
    const png = makePng();
    const big = Buffer.concat([png, Buffer.alloc(AVATAR_MAX_BYTES + 1 - png.length)]);
    expect(big.length).toBe(AVATAR_MAX_BYTES + 1);
    const result = await post(multipart([csrf, { name: 'file', filename: 'big.png', data: big }]), { chunked: true });
    expect(result).toEqual({ status: 413, body: { code: 'limit_file_size' } });
    expect(forwarded.calls).toBe(1);
    expect(forwarded.aborted).toBe(1);
    expect(forwarded.bodies).toHaveLength(0);
  });

  it('lets exactly 5 MiB through', async () => {
    const png = makePng();
    const exact = Buffer.concat([png, Buffer.alloc(AVATAR_MAX_BYTES - png.length)]);
    const result = await post(multipart([csrf, { name: 'file', filename: 'exact.png', data: exact }]), { chunked: true });
    expect(result.status).toBe(200);
    expect(forwarded.bodies).toHaveLength(1);
  });

  it('refuses HTML named .png and a GIF by their signatures', async () => {
    const html = await post(multipart([csrf, { name: 'file', filename: 'photo.png', type: 'image/png', data: HTML_AS_PNG }]));
    expect(html).toEqual({ status: 400, body: { code: 'valid_type' } });
    const gif = await post(multipart([csrf, { name: 'file', filename: 'photo.gif', type: 'image/gif', data: GIF }]));
    expect(gif).toEqual({ status: 400, body: { code: 'valid_type' } });
    const tiny = await post(multipart([csrf, { name: 'file', filename: 'x.jpg', data: Buffer.from([0xff, 0xd8, 0xff]) }]));
    expect(tiny).toEqual({ status: 400, body: { code: 'valid_type' } });
    expect(forwarded.calls).toBe(0);
  });

  it('refuses a second file arriving after the first was streamed, cancelling the first', async () => {
    const png = makePng({ width: 300, height: 300 });
    const big = Buffer.concat([png, Buffer.alloc(400_000)]);
    const body = multipart([csrf, { name: 'file', filename: 'a.png', data: big }, { name: 'file', filename: 'b.png', data: makePng() }]);
    const result = await post(body, { chunked: true });
    expect(result).toEqual({ status: 400, body: { code: 'only_one_file_allowed' } });
    expect(forwarded.calls).toBe(1);
    expect(forwarded.aborted).toBe(1);
    expect(forwarded.bodies).toHaveLength(0);
  });

  it('refuses two files sent at once without forwarding either', async () => {
    const result = await post(multipart([csrf, { name: 'file', filename: 'a.png', data: makePng() }, { name: 'file', filename: 'b.png', data: makePng() }]));
    expect(result).toEqual({ status: 400, body: { code: 'only_one_file_allowed' } });
    // Refused while parsing, before the first file's data was even delivered: nothing goes out.
    expect(forwarded.calls).toBe(0);
    expect(forwarded.bodies).toHaveLength(0);
  });

  it('reports a missing or empty file as file_type_not_exist', async () => {
    expect(await post(multipart([csrf]))).toEqual({ status: 400, body: { code: 'file_type_not_exist' } });
    expect(await post(multipart([csrf, { name: 'file', filename: '', data: Buffer.alloc(0) }]))).toEqual({
      status: 400,
      body: { code: 'file_type_not_exist' },
    });
    expect(await post(Buffer.from('a=b'), { contentType: 'application/x-www-form-urlencoded' })).toEqual({
      status: 400,
      body: { code: 'file_type_not_exist' },
    });
  });

  it('cancels the backend call when the browser goes away mid-upload', async () => {
    const png = makePng();
    const head = Buffer.concat([
      multipart([csrf]).subarray(0, -`--${BOUNDARY}--\r\n`.length),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.alloc(200_000),
    ]);
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/',
      headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(head.length + 1_000_000) },
    });
    req.on('error', () => {});
    req.write(head);
    // The file has started streaming to the backend…
    await vi.waitFor(() => expect(forwarded.calls).toBe(1), { timeout: 5_000, interval: 5 });
    req.destroy();
    // …and the browser going away ends the relay.
    await vi.waitFor(() => expect(forwarded.settled).toHaveLength(1), { timeout: 5_000, interval: 5 });
    expect(forwarded.settled).toEqual(['invalid_multipart']);
    expect(forwarded.aborted).toBe(1);
    expect(forwarded.bodies).toHaveLength(0);
  });

  it('answers a broken multipart body with 400', async () => {
    const result = await post(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\ngood-token`));
    expect(result.status).toBe(400);
  });
});
