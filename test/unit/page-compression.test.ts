import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { guestPageText, gzipGuestPage, gzipPage } from '../../server/assets.ts';

// Pages are compressed by fflate (decision 240); a browser decodes them with zlib's inflate, as node:zlib does here.
const vietnamese = '<p>Đăng nhập bằng mật khẩu của bạn — Quên mật khẩu?</p>';
const page = `<!doctype html><html lang="vi"><body>${vietnamese.repeat(200)}<input name="csrf_token" value="a+b/c="/></body></html>`;

describe('page compression', () => {
  it('a whole page is gzip that inflates to the same text, multi-byte characters included, and is much smaller', () => {
    const gzipped = gzipPage(page);
    expect(gzipped.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gunzipSync(gzipped).toString()).toBe(page);
    expect(gzipped.length).toBeLessThan(Buffer.byteLength(page) / 10);
  });

  it('a guest page joins the start and CSS compressed once with the rest compressed per request into one gzip member', () => {
    const css = ':root{--primary:#0b63ce}body{margin:0}';
    const guest = {
      start: '<!doctype html><html lang="vi"><head><meta name="viewport" content="width=device-width"/>',
      rest: `</head><body>${vietnamese.repeat(50)}</body></html>`,
    };
    const first = gzipGuestPage(guest, css);
    const second = gzipGuestPage({ ...guest, rest: `${guest.rest}<!-- another request -->` }, css);
    expect(gunzipSync(first).toString()).toBe(guestPageText(guest, css));
    expect(gunzipSync(second).toString()).toBe(`${guestPageText(guest, css)}<!-- another request -->`);
  });
});
