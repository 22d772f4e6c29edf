// An account's own /profile-settings page, asked for again, is rendered and compressed once its inputs
// repeat (decision 253, issue #17's profile bar): from a kept render and a kept gzip template, with the
// request's own nonce, flow id and CSRF tokens in their places. The key holds everything the page shows,
// so a changed name shows at once, and one account's page never answers for another's.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawPage as rawPageOf } from '../../support/http.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

type RawPage = { status: number; body: Buffer; text: string; nonce: string };

/** The page as it comes over the wire (still gzip), its text, and the CSP nonce its headers give. */
async function rawPage(address: string, cookie: string): Promise<RawPage> {
  const answer = await rawPageOf(env.appUrl, address, cookie);
  const text = answer.encoding === 'gzip' ? gunzipSync(answer.body).toString() : answer.body.toString();
  return { ...answer, text };
}

/** The flow id of a signed-in user's settings form. */
const flowOf = (user: { settingsAction: string }): string => new URL(user.settingsAction, env.appUrl).searchParams.get('flow')!;

/** A kept template sends the request's values as stored blocks: the nonce, byte for byte, in the raw gzip. */
const fromTemplate = (page: RawPage): boolean => page.body.includes(Buffer.from(page.nonce));

describe("an account's own page from its kept render and template (decision 253)", () => {
  it('asked again, the page comes from the template with its own nonce, flow id and CSRF tokens', async () => {
    const u = await users.signedIn();
    const flowId = flowOf(u);
    const pages: RawPage[] = [];
    for (let i = 0; i < 4; i++) pages.push(await rawPage(u.settingsAction, u.browser.cookieHeader()));
    for (const [i, page] of pages.entries()) {
      expect(page.status).toBe(200);
      expect(page.text.includes(`value="${u.email}"`) && page.text.includes('value="Ada"'), `page ${i}`).toBe(true);
      expect(
        page.text.match(/nonce="([^"]+)"/g)?.every((attribute) => attribute === `nonce="${page.nonce}"`),
        `page ${i}`,
      ).toBe(true);
      // Kratos's CSRF token of this read of the flow, the same in all the page's forms.
      expect(new Set(page.text.match(/name="csrf_token" value="[^"]+"/g)).size, `page ${i}`).toBe(1);
      expect(page.text.includes(`name="_csrf" value="${u.csrf}"`), `page ${i}`).toBe(true);
      expect(page.text.includes(`action="/profile-settings?flow=${flowId}"`), `page ${i}`).toBe(true);
    }
    // Seen twice by then (the page opened at sign-in, and the first here), so kept from the third on.
    expect(pages.slice(2).every(fromTemplate)).toBe(true);
    expect(new Set(pages.map((page) => page.nonce)).size).toBe(4);
    // A value the page holds again is sent as a copy of its first place: the flow id is in the gzip once.
    const last = pages[3]!;
    expect(last.text.split(flowId).length - 1).toBeGreaterThan(2);
    expect(last.body.toString('latin1').split(flowId).length - 1).toBe(1);
  });

  it('a name saved since is shown at once, not the kept page', async () => {
    const u = await users.signedIn();
    const shown: RawPage[] = [];
    for (let i = 0; i < 3; i++) shown.push(await rawPage(u.settingsAction, u.browser.cookieHeader()));
    expect(fromTemplate(shown[2]!), 'the page with "Ada" is kept by now').toBe(true);
    const saved = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, 'traits.name': 'Grace', method: 'profile' });
    expect(saved.status).toBe(303);
    for (let i = 0; i < 3; i++) {
      const page = await rawPage(u.settingsAction, u.browser.cookieHeader());
      expect(page.text.includes('value="Grace"') && !page.text.includes('value="Ada"'), `page ${i}`).toBe(true);
    }
  });

  it("two accounts whose pages have the same shape never get each other's", async () => {
    const [a, b] = [await users.signedIn({ name: 'Ann' }), await users.signedIn({ name: 'Bob' })];
    expect(a.email.length).toBe(b.email.length);
    for (let i = 0; i < 3; i++) {
      for (const [me, other] of [
        [a, b],
        [b, a],
      ] as const) {
        const page = await rawPage(me.settingsAction, me.browser.cookieHeader());
        expect(page.text.includes(`value="${me.email}"`) && page.text.includes(flowOf(me)) && page.text.includes(me.csrf), `${me.email}, round ${i}`).toBe(
          true,
        );
        expect(page.text.includes(other.email) || page.text.includes(flowOf(other)) || page.text.includes(other.csrf), `${me.email}, round ${i}`).toBe(false);
      }
    }
  });
});
