import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { guestPageText, type GuestPage } from '../../server/assets.ts';
import { gzipTemplatedGuestPage, gzipTemplatedPage } from '../../server/page-templates.ts';

// A guest page sent from its kept template (decision 241): the request's own values between parts
// deflated once. A browser decodes it with zlib's inflate, as node:zlib does here.
const css = ':root{--primary:#0b63ce}body{margin:0;font:16px system-ui}'.repeat(20);
const start = '<!doctype html><html lang="vi"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width"/>';
const values = () => ({
  nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64'),
  flow: crypto.randomUUID(),
  csrf: Buffer.from(crypto.getRandomValues(new Uint8Array(64))).toString('base64'),
});
const rest = ({ nonce, flow, csrf }: ReturnType<typeof values>, text = 'Đăng nhập bằng mật khẩu — Quên mật khẩu?') =>
  `<script nonce="${nonce}">theme()</script></head><body data-address="/sign-in?flow=${flow}"><form action="/sign-in?flow=${flow}">` +
  `<input type="hidden" name="csrf_token" value="${csrf}"/><p>${text}</p>${'<button class="btn btn--social">Google</button>'.repeat(30)}` +
  `</form><script nonce="${nonce}" src="/assets/main.js"></script></body></html>${flow}`;
const pageOf = (v: ReturnType<typeof values>, text?: string): GuestPage => ({ start, rest: rest(v, text) });
const send = (page: GuestPage, v: ReturnType<typeof values>) => gzipTemplatedGuestPage(page, css, [v.flow, v.csrf, v.nonce]);

describe('guest pages from kept templates', () => {
  it('a page is templated from its second sighting; each answer inflates to its own page, its values stored as they are', () => {
    const first = values();
    expect(send(pageOf(first), first), 'the first sighting is compressed per request').toBeUndefined();
    for (const v of [values(), values(), values()]) {
      const gzipped = send(pageOf(v), v)!;
      expect(gunzipSync(gzipped).toString()).toBe(guestPageText(pageOf(v), css));
      // Stored blocks: the values are in the answer byte for byte, never taken from another request.
      for (const value of [v.nonce, v.flow, v.csrf]) expect(gzipped.includes(Buffer.from(value))).toBe(true);
      expect(gzipped.includes(Buffer.from(first.nonce))).toBe(false);
      expect(gzipped.length).toBeLessThan(Buffer.byteLength(guestPageText(pageOf(v), css)) / 3);
    }
  });

  it('a page with other text in the same places (same length, values at the same offsets) never gets the other template', () => {
    const other = 'X'.repeat('Đăng nhập bằng mật khẩu — Quên mật khẩu?'.length);
    const a = values();
    const kept = send(pageOf(a), a); // the first test's template, kept by now
    expect(gunzipSync(kept!).toString()).toBe(guestPageText(pageOf(a), css));
    const b = values();
    expect(send(pageOf(b, other), b), 'first sighting of the other text').toBeUndefined();
    const c = values();
    expect(gunzipSync(send(pageOf(c, other), c)!).toString()).toBe(guestPageText(pageOf(c, other), css));
  });

  it('values that are not in the page, short or outside ASCII are not cut out; a page without any is not templated', () => {
    const page: GuestPage = { start, rest: '</head><body><p>naïve café</p></body></html>' };
    for (let i = 0; i < 3; i++) {
      expect(gzipTemplatedGuestPage(page, css, ['0123456789abcdef0123'])).toBeUndefined();
      expect(gzipTemplatedGuestPage(page, css, ['naïve café</p></body>'])).toBeUndefined();
      expect(gzipTemplatedGuestPage(page, css, ['café'])).toBeUndefined();
    }
  });

  it('values side by side, at the very start and at the end of the text', () => {
    const make = () => {
      const v = values();
      return { v, page: { start, rest: `${v.flow}${v.csrf}<p>é</p>${v.nonce}` } };
    };
    const { v: v0, page: p0 } = make();
    expect(gzipTemplatedGuestPage(p0, css, [v0.flow, v0.csrf, v0.nonce])).toBeUndefined();
    const { v, page } = make();
    const gzipped = gzipTemplatedGuestPage(page, css, [v.flow, v.csrf, v.nonce])!;
    expect(gunzipSync(gzipped).toString()).toBe(guestPageText(page, css));
  });
});

describe("an account's own pages from kept templates (decision 253)", () => {
  // A signed-in page has no kept start: its template starts at the document's first byte.
  const accountPage = (v: ReturnType<typeof values>, email = 'ada@example.com') => `${start}</head><body><p>${email}</p>${rest(v)}`;
  const sendAccount = (html: string, v: ReturnType<typeof values>) => gzipTemplatedPage(html, [v.flow, v.csrf, v.nonce]);

  it('templated from its second sighting; each answer inflates to its own page; a value met again is sent as a copy', () => {
    const first = values();
    expect(sendAccount(accountPage(first), first)).toBeUndefined();
    for (const v of [values(), values()]) {
      const html = accountPage(v);
      const gzipped = sendAccount(html, v)!;
      expect(gunzipSync(gzipped).toString()).toBe(html);
      // The flow id is in the page three times, in the answer once: stored the first time, then copied.
      expect(html.split(v.flow).length - 1).toBe(3);
      expect(gzipped.toString('latin1').split(v.flow).length - 1).toBe(1);
      expect(gzipped.toString('latin1').split(v.nonce).length - 1).toBe(1);
    }
  });

  it("another account's page of the same shape never gets the template, nor a guest page's", () => {
    const a = values();
    expect(sendAccount(accountPage(a), a), "kept by the first test's pages").toBeDefined();
    const other = 'bob@example.com';
    const b = values();
    expect(sendAccount(accountPage(b, other), b), "first sighting of the other account's text").toBeUndefined();
    const c = values();
    expect(gunzipSync(sendAccount(accountPage(c, other), c)!).toString()).toBe(accountPage(c, other));
    const guest = values();
    expect(gzipTemplatedGuestPage({ start, rest: accountPage(guest).slice(start.length) }, css, [guest.flow, guest.csrf, guest.nonce])).toBeUndefined();
  });
});
