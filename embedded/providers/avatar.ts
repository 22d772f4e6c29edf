// Account pictures (Google's `picture` claim): initials on a colour drawn from the name, as a PNG,
// because the product takes only PNG and JPEG avatars. Drawn once per name.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { escapeHtml } from './http.ts';

const COLOURS = ['#1a73e8', '#d93025', '#188038', '#e37400', '#9334e6', '#007b83'];
const cache = new Map<string, Promise<Buffer>>();

export function avatarPng(name: string): Promise<Buffer> {
  let png = cache.get(name);
  if (!png) {
    const initials = name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((word) => word[0]!.toUpperCase())
      .join('');
    const colour = COLOURS[createHash('sha256').update(name).digest()[0]! % COLOURS.length];
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96"><rect width="96" height="96" fill="${colour}"/>
<text x="48" y="62" font-family="sans-serif" font-size="40" fill="#fff" text-anchor="middle">${escapeHtml(initials)}</text></svg>`;
    png = sharp(Buffer.from(svg)).png().toBuffer();
    cache.set(name, png);
  }
  return png;
}
