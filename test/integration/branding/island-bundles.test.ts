// Signed-in pages load their islands as one file (issue 17, decision 220): the build writes which island
// entries each bundle holds; the profile page names the profile bundle, once, for all its islands,
// another signed-in page the live-session bundle, once, for the socket and dialog islands, and a gateway
// path (no live session shown) or a guest page names none.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../support/app.ts';
import { Browser, createIdentity, signIn } from '../../support/fixtures.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let build: ReturnType<typeof buildApp>;
let stack: Stack;
beforeAll(async () => {
  build = buildApp();
  stack = await startStack({ env: { ASSETS_DIR: build.assetsDir } });
});
afterAll(async () => {
  await stack?.close();
  build?.remove();
});

const PROFILE_ISLANDS = ['avatar', 'dialogs', 'socket', 'tooltip'];
const LIVE_SESSION_ISLANDS = ['dialogs', 'socket'];
const scriptSources = (html: string) => [...html.matchAll(/<script type="module"[^>]* src="([^"]+)"/g)].map((match) => match[1]!);

describe('island bundles', () => {
  it('the build lists the islands each bundle holds, read from what it bundled', () => {
    const bundles = JSON.parse(readFileSync(path.join(build.assetsDir, 'island-bundles.json'), 'utf8')) as Record<string, string[]>;
    expect(bundles).toEqual({ profile: PROFILE_ISLANDS, 'live-session': LIVE_SESSION_ISLANDS });
    const manifest = JSON.parse(readFileSync(path.join(build.assetsDir, 'manifest.json'), 'utf8')) as Record<string, string>;
    expect(manifest['profile.js']).toMatch(/^\/assets\/profile-[A-Z0-9]+\.js$/);
    expect(manifest['live-session.js']).toMatch(/^\/assets\/live-session-[A-Z0-9]+\.js$/);
    for (const island of PROFILE_ISLANDS) expect(manifest[`${island}.js`], island).toMatch(new RegExp(`^/assets/${island}-[A-Z0-9]+\\.js$`));
  });

  it('the profile page names its bundle for its islands; another signed-in page the live-session bundle; a gateway path neither', async () => {
    const browser = new Browser(stack.appUrl);
    const identity = await createIdentity(stack.identity.adminUrl, { prefix: 'island-bundle' });
    expect((await signIn(browser, identity.email)).status).toBe(303);

    const profile = await browser.follow('/profile-settings');
    expect(profile.status).toBe(200);
    // The markup of all four islands is on the page.
    expect(profile.text).toContain('id="avatar-upload-form"');
    expect(profile.text).toContain('data-island="live-session"');
    expect(profile.text).toContain('data-island="dialog"');
    expect(profile.text).toContain('data-island="tooltip"');
    const sources = scriptSources(profile.text);
    const bundle = sources.filter((src) => /\/assets\/profile-[A-Z0-9]+\.js$/.test(src));
    expect(bundle).toHaveLength(1);
    expect(new Set(sources).size, 'every script address once').toBe(sources.length);
    for (const island of PROFILE_ISLANDS)
      expect(
        sources.some((src) => src.includes(`/assets/${island}-`)),
        island,
      ).toBe(false);
    expect(sources.some((src) => /\/assets\/main-[A-Z0-9]+\.js$/.test(src))).toBe(true);
    // The bundle is served like any island.
    expect((await fetch(`${stack.appUrl}${bundle[0]}`)).status).toBe(200);

    const home = await browser.follow('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('data-island="live-session"');
    const homeSources = scriptSources(home.text);
    expect(homeSources.filter((src) => /\/assets\/live-session-[A-Z0-9]+\.js$/.test(src))).toHaveLength(1);
    expect(new Set(homeSources).size, 'every script address once').toBe(homeSources.length);
    for (const island of [...LIVE_SESSION_ISLANDS, 'profile'])
      expect(
        homeSources.some((src) => src.includes(`/assets/${island}-`)),
        island,
      ).toBe(false);

    // Each render keeps its own record of the scripts it wrote: the profile page again names its bundle.
    const again = scriptSources((await browser.follow('/profile-settings')).text);
    expect(again.filter((src) => /\/assets\/profile-[A-Z0-9]+\.js$/.test(src))).toHaveLength(1);

    // A gateway path shows no live session: no bundle for it.
    const gateway = await browser.follow('/authentication/gateway/done');
    expect(gateway.text).not.toContain('data-island="live-session"');
    expect(scriptSources(gateway.text).some((src) => src.includes('/assets/live-session-'))).toBe(false);
  });
});
