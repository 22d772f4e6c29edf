// The bundled logo drawn in the page and the favicon's data: address (decision 195) are the same image as
// the files public/logo.svg and public/favicon.svg, which stay served for other clients.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BrandLogo, FAVICON_DATA_URI, LOGO_SVG } from '../../../views/components/BrandLogo.tsx';
import { render } from './render.tsx';

describe('BrandLogo', () => {
  it('is the same image as public/logo.svg and public/favicon.svg', () => {
    expect(readFileSync('public/logo.svg', 'utf8').trim()).toBe(LOGO_SVG);
    expect(readFileSync('public/favicon.svg', 'utf8').trim()).toBe(LOGO_SVG);
    expect(decodeURIComponent(FAVICON_DATA_URI.replace('data:image/svg+xml,', ''))).toBe(LOGO_SVG);
  });

  it('draws the default logo inline and shows an operator logo as an image', () => {
    const inline = render(<BrandLogo className="brand__logo" size={32} />);
    expect(inline).toMatch(/^<svg class="brand__logo" xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 64 64" width="32" height="32" aria-hidden="true"/);
    expect(inline).toContain('<rect width="64" height="64" rx="14" fill="#0b63ce"/>');
    expect(inline).not.toContain('<img');
    const operator = render(<BrandLogo className="brand__logo" size={32} />, { brand: { name: 'Paperline', logoUrl: 'https://cdn.example.com/l.svg' } });
    expect(operator).toContain('<img class="brand__logo" src="https://cdn.example.com/l.svg" alt="" width="32" height="32"/>');
  });
});
