// The sign-in page on a phone (390 px wide), JS on and off: the remembered account's "Continue as"
// chip keeps the address whole on one line (a long one ends in an ellipsis, the link's title holds it)
// instead of breaking it mid-word (issue #16 item 8); a full-width button's long label wraps, never cut.
import { describe, expect, it } from 'vitest';
import { catalogueText } from '../support/browser.ts';
import { useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({ name: 'phone-e2e' });
const PHONE = { width: 390, height: 844 };

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    for (const email of ['ada@example.com', 'a.very.long.address.for.a.narrow.phone.screen@documents-and-signatures.example.com']) {
      it(`"Continue as" keeps ${email.length > 30 ? 'a long' : 'a short'} address on one line`, async () => {
        const page = await screens.openPage(javaScriptEnabled, [{ name: 'last_access_account', value: JSON.stringify({ email }) }]);
        await page.setViewportSize(PHONE);
        await page.goto(`${screens.stack.appUrl}/sign-in`);
        const chip = page.locator('.last-account__continue');
        const [before, after] = catalogueText('en', 'authPage.continueAs', { email: '\u0000' }).split('\u0000');
        expect((await chip.innerText()).replace(/\s+/g, ' ').trim()).toBe(`${before}${email}${after}`.trim());
        expect(await chip.getAttribute('title')).toBe(email);
        const layout = await page.locator('.last-account__email').evaluate((el) => {
          const lines = new Set(Array.from(el.getClientRects(), (rect) => Math.round(rect.top)));
          const chipBox = el.closest('.last-account')!.getBoundingClientRect();
          const box = el.getBoundingClientRect();
          return { lines: lines.size, inside: box.right <= chipBox.right + 0.5, clipped: el.scrollWidth > el.clientWidth };
        });
        expect(layout.lines).toBe(1);
        expect(layout.inside).toBe(true);
        expect(layout.clipped).toBe(email.length > 30); // only the long one needs its ellipsis at this width
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      });
    }
  });
}

describe('full-width buttons on a phone', () => {
  it('a label longer than the button wraps to a second line instead of being cut', async () => {
    const page = await screens.openPage(true);
    await page.setViewportSize(PHONE);
    // The invitation page's way out for a bad link (404): "Create an account without an invitation".
    screens.provoke(404);
    await page.goto(`${screens.stack.appUrl}/sign-up/invitation?token=not-a-token`);
    const button = page.locator('a.btn--full[href="/sign-up"]');
    expect((await button.innerText()).trim()).toBe(catalogueText('en', 'invitation.signUpInstead'));
    const layout = await button.evaluate((el) => {
      const label = el.querySelector('.btn__label')!;
      return { cut: label.scrollWidth > label.clientWidth, height: el.getBoundingClientRect().height, width: el.getBoundingClientRect().width };
    });
    expect(layout.cut).toBe(false);
    expect(layout.height).toBeGreaterThanOrEqual(44);
    // A label that fits keeps the button's height: the size's, not a line's.
    expect((await page.locator('a.btn--full[href="/sign-in"]').boundingBox())!.height).toBe(44);
  });
});
