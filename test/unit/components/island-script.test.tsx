// IslandScript (views/components/IslandScript.tsx): an island's script where its markup is, and one tag per
// address in a render, so a page whose islands share a bundle (decision 220) names the bundle once.
import { describe, expect, it } from 'vitest';
import { IslandScript } from '../../../views/components/IslandScript.tsx';
import { render } from './render.tsx';

const BUNDLE = '/assets/profile-P.js';
const scriptTags = (html: string) => html.match(/<script [^>]*><\/script>/g) ?? [];

describe('IslandScript', () => {
  it('writes a bundle shared by several islands once, and an island of its own beside it', () => {
    const islandScripts = { avatar: BUNDLE, dialogs: BUNDLE, tooltip: BUNDLE, captcha: '/assets/captcha-C.js' };
    const html = render(
      <>
        <IslandScript name="avatar" />
        <IslandScript name="dialogs" />
        <IslandScript name="captcha" />
        <IslandScript name="tooltip" />
      </>,
      { islandScripts, writtenScripts: new Set() },
    );
    expect(scriptTags(html)).toEqual([
      `<script type="module" nonce="test-nonce" src="${BUNDLE}"></script>`,
      '<script type="module" nonce="test-nonce" src="/assets/captcha-C.js"></script>',
    ]);
  });

  it('writes nothing for an island the build has no entry for', () => {
    expect(render(<IslandScript name="avatar" />, { islandScripts: {}, writtenScripts: new Set() })).toBe('');
  });
});
