// The avatar's file picker (issue #16 item 7): without JavaScript a plain file input, labelled and
// styled; with it, the box around the input is also a drop zone, and a dropped image is previewed and
// uploaded exactly like a chosen one.
import { describe, expect, it } from 'vitest';
import { catalogueText } from '../support/browser.ts';
import { makePng } from '../integration/profile/images.ts';
import { openProfile, signInWith } from './profile-steps.ts';
import { useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({ name: 'avatar-picker-e2e' });

describe('avatar file picker', () => {
  it('without JavaScript: a labelled file input, no drop cue', async () => {
    const account = await screens.newAccount('picker-nojs');
    const page = await screens.openPage(false);
    await signInWith(page, screens.stack.appUrl, account.email, account.password);
    await openProfile(page, screens.stack.appUrl, '#avatar-upload-form');
    expect(await page.locator('label[for="avatar-file"]').innerText()).toBe(catalogueText('en', 'profile.avatar.choose'));
    expect(await page.locator('#avatar-file').isVisible()).toBe(true);
    expect(await page.locator('.file-drop__cue').isVisible()).toBe(false);
  });

  it('with JavaScript: an image dropped on the box is previewed, then uploaded', async () => {
    const account = await screens.newAccount('picker-js');
    const page = await screens.openPage(true);
    await signInWith(page, screens.stack.appUrl, account.email, account.password);
    // The island comes in the profile page's own bundle (decision 220): the home page (no avatar form) loads neither.
    await page.goto(`${screens.stack.appUrl}/`);
    expect(await page.locator('script[src*="/assets/avatar-"], script[src*="/assets/profile-"]').count()).toBe(0);
    await openProfile(page, screens.stack.appUrl, '#avatar-upload-form');
    expect(await page.locator('script[src*="/assets/profile-"]').count()).toBeGreaterThan(0);
    expect(await page.locator('script[src*="/assets/avatar-"]').count()).toBe(0);
    const zone = page.locator('[data-drop-zone]');
    await page.locator('.file-drop__cue', { hasText: catalogueText('en', 'profile.avatar.drop') }).waitFor();
    expect(await zone.getAttribute('class')).toContain('file-drop--on');

    const png = makePng({ width: 48, height: 48, rgb: [30, 160, 90] }).toString('base64');
    const dataTransfer = await page.evaluateHandle((base64) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
      return transfer;
    }, png);
    await zone.dispatchEvent('dragover', { dataTransfer });
    expect(await zone.getAttribute('class')).toContain('file-drop--over');
    await zone.dispatchEvent('drop', { dataTransfer });
    expect(await zone.getAttribute('class')).not.toContain('file-drop--over');
    await page.waitForFunction(() => document.querySelector<HTMLImageElement>('[data-avatar-picture] .avatar__img')?.src.startsWith('blob:'));
    expect(await page.evaluate(() => document.querySelector<HTMLInputElement>('#avatar-file')!.files![0]!.name)).toBe('dropped.png');
    await page.click('#avatar-upload-form button[type="submit"]');
    await page.locator('.toast', { hasText: catalogueText('en', 'profile.avatar.uploaded') }).waitFor();
    await page.waitForFunction(() => /\/avatars\/[a-f0-9]{32}\.png$/.test(document.querySelector<HTMLImageElement>('.profile-header .avatar__img')?.src ?? ''));
  });
});
