// reCAPTCHA v2 on sign-up in Debian's Chromium (decision 170), against the local stand-in (embedded/captcha):
// with JavaScript the widget (a frame of the captcha origin) hands its token to the form; a refused post
// shows the translated message and a fresh widget; without JavaScript Google's fallback code goes in by hand.
import type { Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptchaStandIn, type CaptchaStandIn } from '../../embedded/captcha/index.ts';
import { STRONG_PASSWORD, uniqueEmail } from '../support/fixtures.ts';
import { useScreenStack } from './screen-stack.ts';

let captcha: CaptchaStandIn;
beforeAll(async () => {
  captcha = await startCaptchaStandIn();
});
afterAll(() => captcha?.close());

const screens = useScreenStack({
  name: 'captcha-e2e',
  env: {
    RECAPTCHA_SITE_KEY: 'e2e-site-key',
    RECAPTCHA_SECRET_KEY: 'e2e-secret-key',
    // Read when the stack starts, after the stand-in above listens.
    get RECAPTCHA_VERIFY_URL() {
      return captcha.verifyUrl;
    },
    get RECAPTCHA_SCRIPT_URL() {
      return captcha.scriptUrl;
    },
  },
});

/** Step 1 of the sign-up, then the credential step with the widget. */
async function toCredentialStep(page: Page, email: string): Promise<void> {
  screens.identities.track(email);
  await page.goto(`${screens.stack.appUrl}/sign-up`);
  await page.fill('#field-traits-email', email);
  await page.fill('#field-traits-name', 'Robo Tester');
  await page.check('#field-terms');
  await page.click('button[name="method"][value="profile"]');
  await page.waitForSelector('#field-password');
  await page.fill('#field-password', STRONG_PASSWORD);
}

describe('sign-up with the captcha', () => {
  it('JavaScript on: unticked is refused in place with a fresh widget; ticked goes on to verification', async () => {
    const page = await screens.openPage(true);
    await toCredentialStep(page, uniqueEmail('captcha-e2e'));
    await page.waitForSelector('iframe[title="reCAPTCHA"]');
    screens.provoke(400);
    await page.click('button[name="method"][value="password"]');
    await expect.poll(() => page.textContent('#sign-up-form')).toContain('We couldn’t confirm that you’re not a robot. Please try again.');
    // The form island swapped the form: the captcha island rendered the widget again.
    await page.waitForSelector('iframe[title="reCAPTCHA"]');
    await page.fill('#field-password', STRONG_PASSWORD);
    await page.frameLocator('iframe[title="reCAPTCHA"]').locator('#robot').check();
    await expect.poll(() => page.inputValue('textarea[name="g-recaptcha-response"]')).toMatch(/^stand-in-/);
    expect(await page.locator('textarea[name="g-recaptcha-response"]').count()).toBe(1);
    await Promise.all([page.waitForURL(/\/sign-up\/verification\?flow=/), page.click('button[name="method"][value="password"]')]);
    expect(captcha.verifications.at(-1)).toMatchObject({ success: true });
  });

  it('JavaScript off: the fallback frame gives a code to paste, and the sign-up goes on', async () => {
    const page = await screens.openPage(false);
    await toCredentialStep(page, uniqueEmail('captcha-e2e-nojs'));
    // The frame, the field's label and the field stand one under the other, inside the form's width.
    const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
    const frame = await box('iframe.captcha__fallback-frame');
    const label = await box('label[for="g-recaptcha-response-fallback"]');
    const field = await box('#g-recaptcha-response-fallback');
    const form = await box('#sign-up-form');
    expect(label.y).toBeGreaterThanOrEqual(frame.y + frame.height);
    expect(field.y).toBeGreaterThanOrEqual(label.y + label.height);
    expect(frame.x + frame.width).toBeLessThanOrEqual(form.x + form.width + 1);
    const fallback = page.frameLocator('iframe.captcha__fallback-frame');
    await fallback.locator('input[name="robot"]').check();
    await fallback.locator('button[type="submit"]').click();
    const code = await fallback.locator('#fallback-token').inputValue();
    expect(code).toMatch(/^stand-in-/);
    await page.fill('#g-recaptcha-response-fallback', code);
    await Promise.all([page.waitForURL(/\/sign-up\/verification\?flow=/), page.click('button[name="method"][value="password"]')]);
  });
});

describe('sign-in after repeated failures', () => {
  it('JavaScript on: the failure that makes the captcha due swaps in a working widget (its scripts were not on the page); ticked, the right password signs in', async () => {
    const { email, password } = await screens.newAccount('captcha-sign-in');
    const page = await screens.openPage(true);
    await page.goto(`${screens.stack.appUrl}/sign-in`);
    expect(await page.locator('.g-recaptcha').count()).toBe(0);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      screens.provoke(400);
      await page.fill('#field-identifier', email);
      await page.fill('#field-password', 'Wrong-Password-123');
      await Promise.all([page.waitForResponse((answer) => answer.request().method() === 'POST'), page.click('button[name="method"][value="password"]')]);
      // Swapped: the refused form comes back with an empty password.
      await expect.poll(() => page.inputValue('#field-password')).toBe('');
    }
    // Google's script and the captcha island came with the swapped form: the widget is drawn, no fallback.
    await page.waitForSelector('iframe[title="reCAPTCHA"]');
    expect(await page.locator('.captcha__fallback-frame').count()).toBe(0);
    await page.fill('#field-password', password);
    await page.frameLocator('iframe[title="reCAPTCHA"]').locator('#robot').check();
    await expect.poll(() => page.inputValue('textarea[name="g-recaptcha-response"]')).toMatch(/^stand-in-/);
    expect(await page.locator('textarea[name="g-recaptcha-response"]').count()).toBe(1);
    await Promise.all([page.waitForURL(`${screens.stack.appUrl}/`), page.click('button[name="method"][value="password"]')]);
    expect(captcha.verifications.at(-1)).toMatchObject({ success: true });
  });
});
