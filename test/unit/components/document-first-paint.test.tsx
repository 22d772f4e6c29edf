// Decision 246: every page's first paint waits until its last element, the footer, is parsed
// (<link rel="expect" blocking="render"> in the head), whatever the page holds.
import { describe, expect, it } from 'vitest';
import { Document } from '../../../views/layout/Document.tsx';
import { render } from './render.tsx';

const EXPECT_LINK = /<link rel="expect" href="#([\w-]+)" blocking="render"\/>/;

const pages = {
  guest: render(
    <Document title="Sign in" canonical="https://x.test/sign-in" assets={{ css: '', js: '/assets/main.js' }}>
      <main className="page page--auth" />
    </Document>,
  ),
  'signed in, with the live session': render(
    <Document title="Profile" canonical="https://x.test/profile-settings" assets={{ css: '/assets/app.css', js: '/assets/main.js' }}>
      <main className="page page--profile" />
    </Document>,
    { liveSession: { sessionKey: 'k', socketUrl: '' }, toasts: [{ id: 'saved', variant: 'success', message: 'Saved' }] },
  ),
};

describe('first paint waits for the whole page', () => {
  it.each(Object.entries(pages))('%s: the head expects the footer, which is the body’s last element', (_name, html) => {
    const head = html.slice(0, html.indexOf('</head>'));
    const id = EXPECT_LINK.exec(head)?.[1];
    expect(id).toBeDefined();
    // One element carries the id, and nothing follows it in the body: the whole page is parsed when it is.
    expect(html.split(`id="${id}"`)).toHaveLength(2);
    const footerAt = html.lastIndexOf('<footer');
    expect(html.slice(footerAt, html.indexOf('>', footerAt))).toContain(`id="${id}"`);
    expect(html.endsWith('</footer></body></html>')).toBe(true);
  });
});
