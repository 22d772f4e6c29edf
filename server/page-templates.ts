/**
 * Guest pages whose text repeats from one request to the next, apart from a few values made for each
 * request (the CSP nonce, the flow id, CSRF tokens), sent as gzip without compressing them again
 * (decision 241). The text with those values cut out is a page's template: its parts between the values are
 * deflated once, each with everything before it (the page's start and CSS, the template so far) as the
 * window, and kept; a request sends the kept parts with its own values between them as stored blocks.
 *
 * Only pages that show nothing a person entered come here (server/flows/flow-screen-show.ts decides): a
 * kept template answers faster than a new one, and that must not tell anyone what someone else typed.
 */
import { constants as zlib, crc32, deflateRawSync } from 'node:zlib';
import type { LRUCache } from 'lru-cache';
import { boundedLru, cachesPerOwner } from './bounded-lru.ts';
import { compressedStart, FINAL_BLOCK, GZIP_HEADER, type CompressedStart, type GuestPage } from './assets.ts';

/** One part of a template: its deflated bytes and how it moves a running CRC-32 (see crcAfter). */
type Part = { deflated: Buffer; crcOfPart: number; crcShift: Uint32Array };
/** The texts around the values' places, deflated; `bytes` is the template's length in bytes (the values' included). */
type Template = { texts: readonly string[]; parts: Part[]; bytes: number };
type Cut = { at: number; value: string };

// Stands for a value in the template: never in a page's text, so a deflated part cannot refer back into
// the bytes a value takes, which differ on every request. One byte in UTF-8, like each ASCII value's characters.
export const PLACEHOLDER = '\u0001';
// A value shorter than this is not cut out: it could match ordinary text (the values are 20+ characters).
const SHORTEST_VALUE = 16;
// Templates kept per language start: every guest screen, with and without the cookie banner, with room.
const TEMPLATES_KEPT = 64;
const WINDOW_BYTES = 32 * 1024;

// Both keyed by the page's length and where its values stand (shapeOf), and checked against the texts:
// hashing the whole text as a key cost ~20 µs a page. `seen`: the texts of a template met once, not yet kept.
const cacheFor = cachesPerOwner((): { kept: LRUCache<string, Template>; seen: LRUCache<string, readonly string[]> } => ({
  kept: boundedLru(TEMPLATES_KEPT),
  seen: boundedLru(TEMPLATES_KEPT),
}));

/** Where each value stands in `text`, in order, overlaps dropped. */
export function cutsIn(text: string, values: readonly string[]): Cut[] {
  const cuts: Cut[] = [];
  for (const value of values) {
    // Only ASCII values keep the template's byte length equal to the page's.
    if (value.length < SHORTEST_VALUE || !/^[\x20-\x7e]+$/.test(value)) continue;
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length)) cuts.push({ at, value });
  }
  cuts.sort((a, b) => a.at - b.at);
  return cuts.filter((cut, i) => i === 0 || cut.at >= cuts[i - 1]!.at + cuts[i - 1]!.value.length);
}

/** The parts of `text` between the cuts (as many as cuts + 1, some empty). */
export function partsOf(text: string, cuts: readonly Cut[]): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    parts.push(text.slice(from, cut.at));
    from = cut.at + cut.value.length;
  }
  parts.push(text.slice(from));
  return parts;
}

/**
 * CRC-32 is affine in the value it starts from: crc32(part, c) = crc32(part, 0) XOR L(c), L linear and the
 * same for every start. Keeping L's image of each of the 32 bits lets a request continue the CRC over a kept
 * part without reading the part again.
 */
function crcShiftOf(bytes: Buffer, crcOfPart: number): Uint32Array {
  const shift = new Uint32Array(32);
  for (let bit = 0; bit < 32; bit++) shift[bit] = (crc32(bytes, (1 << bit) >>> 0) ^ crcOfPart) >>> 0;
  return shift;
}

function crcAfter(part: Part, crc: number): number {
  let result = part.crcOfPart;
  for (let bit = 0; crc !== 0; bit++, crc >>>= 1) if (crc & 1) result ^= part.crcShift[bit]!;
  return result >>> 0;
}

const shapeOf = (text: string, cuts: readonly Cut[]): string => `${text.length}:${cuts.map((cut) => `${cut.at}+${cut.value.length}`).join(',')}`;

const sameTexts = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((text, i) => text === b[i]);

function buildTemplate(start: CompressedStart, parts: readonly string[], cuts: readonly Cut[]): Template {
  const built: Part[] = [];
  let before = start.bytes;
  let bytes = 0;
  parts.forEach((text, i) => {
    const partBytes = Buffer.from(text);
    const dictionary = before.subarray(Math.max(0, before.length - WINDOW_BYTES));
    const deflated = partBytes.length ? deflateRawSync(partBytes, { level: 9, dictionary, finishFlush: zlib.Z_SYNC_FLUSH }) : Buffer.alloc(0);
    const crcOfPart = crc32(partBytes);
    built.push({ deflated, crcOfPart, crcShift: crcShiftOf(partBytes, crcOfPart) });
    const cut = cuts[i];
    const placeholder = cut ? Buffer.alloc(cut.value.length, PLACEHOLDER) : Buffer.alloc(0);
    before = Buffer.concat([dictionary, partBytes, placeholder]);
    bytes += partBytes.length + placeholder.length;
  });
  return { texts: parts, parts: built, bytes };
}

/** The kept template of a page with these parts, kept now if it is the second time they are seen. */
function templateFor(start: CompressedStart, shape: string, parts: readonly string[], cuts: readonly Cut[]): Template | undefined {
  const { kept, seen } = cacheFor(start);
  const template = kept.get(shape);
  if (template && sameTexts(template.texts, parts)) return template;
  const before = seen.get(shape);
  if (!before || !sameTexts(before, parts)) {
    seen.set(shape, parts);
    return undefined;
  }
  seen.delete(shape);
  const built = buildTemplate(start, parts, cuts);
  kept.set(shape, built);
  return built;
}

const STORED_HEADER_BYTES = 5;

/**
 * The guest page as gzip from its kept template, or undefined: no value in the page, or a template seen
 * for the first time (kept from its second sighting, so text that never repeats costs nothing to keep).
 * Each value goes in as a stored deflate block (it follows a sync-flushed part, so on a byte boundary).
 */
export function gzipTemplatedGuestPage(page: GuestPage, css: string, values: readonly string[]): Buffer | undefined {
  const cuts = cutsIn(page.rest, values);
  if (cuts.length === 0) return undefined;
  const parts = partsOf(page.rest, cuts);
  const start = compressedStart(page.start, css);
  const template = templateFor(start, shapeOf(page.rest, cuts), parts, cuts);
  if (!template) return undefined;
  let size = GZIP_HEADER.length + start.deflated.length + FINAL_BLOCK.length + 8;
  for (const part of template.parts) size += part.deflated.length;
  for (const cut of cuts) size += STORED_HEADER_BYTES + cut.value.length;
  const out = Buffer.allocUnsafe(size);
  let at = GZIP_HEADER.copy(out, 0);
  at += start.deflated.copy(out, at);
  let crc = start.crc;
  template.parts.forEach((part, i) => {
    at += part.deflated.copy(out, at);
    crc = crcAfter(part, crc);
    const cut = cuts[i];
    if (!cut) return;
    out[at] = 0; // not final, stored
    out.writeUInt16LE(cut.value.length, at + 1);
    out.writeUInt16LE(~cut.value.length & 0xffff, at + 3);
    at += STORED_HEADER_BYTES + out.write(cut.value, at + STORED_HEADER_BYTES, 'latin1');
    crc = crc32(cut.value, crc);
  });
  at += FINAL_BLOCK.copy(out, at);
  at = out.writeUInt32LE(crc, at);
  out.writeUInt32LE((start.length + template.bytes) >>> 0, at);
  return out;
}
