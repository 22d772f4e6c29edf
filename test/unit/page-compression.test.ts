import { gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FINAL_BLOCK, guestPageText, gzipGuestPage, gzipPage } from '../../server/assets.ts';
import { deflatePagePart } from '../../server/page-deflate.ts';

// Pages are compressed on kept node:zlib streams (decision 245); a browser decodes them with zlib's inflate, as node:zlib does here.
const vietnamese = '<p>Đăng nhập bằng mật khẩu của bạn — Quên mật khẩu?</p>';
const page = `<!doctype html><html lang="vi"><body>${vietnamese.repeat(200)}<input name="csrf_token" value="a+b/c="/></body></html>`;

/** A kept stream's output made a whole deflate stream, as the gzip member ends it. */
const inflatePart = (deflated: Buffer): string => inflateRawSync(Buffer.concat([deflated, FINAL_BLOCK])).toString();

describe('page compression', () => {
  it('a whole page is gzip that inflates to the same text, multi-byte characters included, and is much smaller', async () => {
    const gzipped = await gzipPage(page);
    expect(gzipped.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gunzipSync(gzipped).toString()).toBe(page);
    expect(gzipped.length).toBeLessThan(Buffer.byteLength(page) / 10);
  });

  it('a guest page joins the start and CSS compressed once with the rest compressed per request into one gzip member', async () => {
    const css = ':root{--primary:#0b63ce}body{margin:0}';
    const guest = {
      start: '<!doctype html><html lang="vi"><head><meta name="viewport" content="width=device-width"/>',
      rest: `</head><body>${vietnamese.repeat(50)}</body></html>`,
    };
    const first = await gzipGuestPage(guest, css);
    const second = await gzipGuestPage({ ...guest, rest: `${guest.rest}<!-- another request -->` }, css);
    expect(gunzipSync(first).toString()).toBe(guestPageText(guest, css));
    expect(gunzipSync(second).toString()).toBe(`${guestPageText(guest, css)}<!-- another request -->`);
  });

  it('pages compressed at the same time on the kept streams each inflate to their own text', async () => {
    const pages = Array.from({ length: 24 }, (_, i) => `<main>${`page ${i} `.repeat(40 + i * 97)}</main>`);
    const deflated = await Promise.all(pages.map((text) => deflatePagePart(Buffer.from(text))));
    expect(deflated.map(inflatePart)).toEqual(pages);
  });

  it('a reused stream starts afresh: a page compresses to the same bytes whatever was compressed before it', async () => {
    const alone = await deflatePagePart(Buffer.from(page));
    await deflatePagePart(Buffer.from(`${page}${page}`));
    const again = await deflatePagePart(Buffer.from(page));
    // Had the stream kept its history, the second time could refer back to the page before and differ.
    expect(again.equals(alone)).toBe(true);
    expect(inflatePart(again)).toBe(page);
  });

  it('an empty part inflates to nothing', async () => {
    expect(inflatePart(await deflatePagePart(Buffer.alloc(0)))).toBe('');
  });
});
