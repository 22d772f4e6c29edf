// bundledIslandScripts (server/assets.ts, decision 220): the islands' addresses for a page that loads a bundle.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledIslandScripts, ISLAND_BUNDLES_FILE } from '../../../server/assets.ts';

const ISLANDS = { avatar: '/assets/avatar-A.js', dialogs: '/assets/dialogs-D.js', socket: '/assets/socket-S.js', profile: '/assets/profile-P.js' };
let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const assetsWith = (bundles?: unknown) => {
  dir = mkdtempSync(path.join(tmpdir(), 'island-bundles-'));
  if (bundles !== undefined) writeFileSync(path.join(dir, ISLAND_BUNDLES_FILE), JSON.stringify(bundles));
  return dir;
};

describe('bundledIslandScripts', () => {
  it('points each island a bundle holds at the bundle, and leaves the others', () => {
    const scripts = bundledIslandScripts(assetsWith({ profile: ['avatar', 'dialogs'] }), ISLANDS);
    expect(scripts).toEqual({
      profile: { avatar: '/assets/profile-P.js', dialogs: '/assets/profile-P.js', socket: '/assets/socket-S.js', profile: '/assets/profile-P.js' },
    });
  });

  it('gives no bundle when the build wrote none (a test manifest) or the bundle itself was not built', () => {
    expect(bundledIslandScripts(assetsWith(), ISLANDS)).toEqual({});
    expect(bundledIslandScripts(assetsWith({ other: ['avatar'] }), ISLANDS)).toEqual({});
  });
});
