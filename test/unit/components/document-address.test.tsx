// Decision 190: a page showing a flow made for its request names the flow's address on <body data-address>,
// which the enhance island puts in the address bar; any other page carries no such attribute.
import { describe, expect, it } from 'vitest';
import { Document } from '../../../views/layout/Document.tsx';
import { render } from './render.tsx';

const page = (address?: string) =>
  render(
    <Document title="Sign in" canonical="https://x.test/sign-in" assets={{ css: '/assets/app.css', js: '/assets/main.js' }}>
      <main />
    </Document>,
    { url: address ?? '/sign-in', address },
  );

describe('Document address for the bar', () => {
  it('carries the new flow’s address, escaped as an attribute', () => {
    expect(page('/sign-in?flow=3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1&logged_out=1')).toContain(
      '<body data-address="/sign-in?flow=3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1&amp;logged_out=1">',
    );
    expect(page('/sign-in?flow=x&q="><script>')).not.toContain('"><script>');
  });

  it('is absent on a page without a new flow', () => {
    expect(page()).toContain('<body>');
    expect(page()).not.toContain('data-address');
  });
});
