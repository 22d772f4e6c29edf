/**
 * Guest pages whose text repeats from one request to the next, apart from a few values made for each
 * request (the CSP nonce, the flow id, CSRF tokens), sent as gzip without compressing them again
 * (decision 241). The text with those values cut out is a page's template: its parts between the values are
 * deflated once, each with everything before it (the page's start and CSS, the template so far) as the
 * window, and kept; a request sends the kept parts with its own values between them: stored the first
 * time, copied from there when met again (server/deflate-copy.ts).
 *
 * Only pages that show nothing a person entered come here (server/flows/flow-screen-show.ts decides): a
 * kept template answers faster than a new one, and that must not tell anyone what someone else typed.
 * An account's own page comes too (decision 253): its text holds that account's data, so its template
 * serves that account's page only.
 */
import { constants as zlib, crc32, deflateRawSync } from 'node:zlib';
import type { LRUCache } from 'lru-cache';
import { boundedLru, cachesPerOwner } from './bounded-lru.ts';
import { compressedStart, FINAL_BLOCK, GZIP_HEADER, type CompressedStart, type GuestPage } from './assets.ts';
import { COPY_DISTANCE_MAX, COPY_LENGTHS, copyBlock } from './deflate-copy.ts';

/** One part of a template: its deflated bytes and how it moves a running CRC-32 (see crcAfter). */
type Part = { deflated: Buffer; crcOfPart: number; crcShift: Uint32Array };
/**
 * The texts around the values' places, deflated; `bytes` is the template's length in bytes (the values'
 * included), `valueAt` where each value's place starts in the whole stream (the page's start included).
 */
type Template = { texts: readonly string[]; parts: Part[]; bytes: number; valueAt: number[] };
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
type TemplateCaches = { kept: LRUCache<string, Template>; seen: LRUCache<string, readonly string[]> };
const templateCaches = (entries: number): TemplateCaches => ({ kept: boundedLru(entries), seen: boundedLru(entries) });
const cacheFor = cachesPerOwner((): TemplateCaches => templateCaches(TEMPLATES_KEPT));

// A page with no kept start (an account's own page, decision 253): its template starts at the document's
// first byte. Kept apart from the guest starts' templates, for the accounts seen most recently.
const NO_START: CompressedStart = { css: '', deflated: Buffer.alloc(0), bytes: Buffer.alloc(0), length: 0, crc: 0 };
const ACCOUNT_TEMPLATES_KEPT = 256;
const accountTemplates = templateCaches(ACCOUNT_TEMPLATES_KEPT);

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
  const valueAt: number[] = [];
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
    if (cut) valueAt.push(start.length + bytes + partBytes.length);
    bytes += partBytes.length + placeholder.length;
  });
  return { texts: parts, parts: built, bytes, valueAt };
}

/** The kept template of a page with these parts, kept now if it is the second time they are seen. */
function templateFor(caches: TemplateCaches, start: CompressedStart, shape: string, parts: readonly string[], cuts: readonly Cut[]): Template | undefined {
  const { kept, seen } = caches;
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
  const start = compressedStart(page.start, css);
  return gzipTemplated(cacheFor(start), start, page.rest, values);
}

/**
 * A page without the guest start (an account's own page, decision 253) as gzip from its kept template, or
 * undefined, as gzipTemplatedGuestPage. Its text holds one account's data, so its template serves only a
 * page of the same text: the same account's, with other values.
 */
export function gzipTemplatedPage(html: string, values: readonly string[]): Buffer | undefined {
  return gzipTemplated(accountTemplates, NO_START, html, values);
}

function gzipTemplated(caches: TemplateCaches, start: CompressedStart, text: string, values: readonly string[]): Buffer | undefined {
  const cuts = cutsIn(text, values);
  if (cuts.length === 0) return undefined;
  const parts = partsOf(text, cuts);
  const template = templateFor(caches, start, shapeOf(text, cuts), parts, cuts);
  if (!template) return undefined;
  const out: Buffer[] = [GZIP_HEADER, start.deflated];
  let crc = start.crc;
  // Where each value was last sent: a value met again is copied from there (server/deflate-copy.ts).
  const sentAt = new Map<string, number>();
  template.parts.forEach((part, i) => {
    out.push(part.deflated);
    crc = crcAfter(part, crc);
    const cut = cuts[i];
    if (!cut) return;
    out.push(valueBlock(cut.value, template.valueAt[i]!, sentAt));
    crc = crc32(cut.value, crc);
  });
  const trailer = Buffer.allocUnsafe(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE((start.length + template.bytes) >>> 0, 4);
  out.push(FINAL_BLOCK, trailer);
  return Buffer.concat(out);
}

// A kept template's values stand at the same places on every request: their copies are the same blocks.
const COPIES_KEPT = 4096;
const copies = boundedLru<string, Buffer>(COPIES_KEPT);

function copyBlockOf(length: number, distance: number): Buffer {
  const key = `${length},${distance}`;
  let block = copies.get(key);
  if (!block) copies.set(key, (block = copyBlock(length, distance)));
  return block;
}

/**
 * A value at byte `at` of the stream: a copy of where it was sent before when that is in deflate's reach,
 * else a stored block (it follows a sync-flushed part, so it starts on a byte boundary).
 */
function valueBlock(value: string, at: number, sentAt: Map<string, number>): Buffer {
  const before = sentAt.get(value);
  sentAt.set(value, at);
  if (before !== undefined && at - before <= COPY_DISTANCE_MAX && value.length >= COPY_LENGTHS.min && value.length <= COPY_LENGTHS.max) {
    return copyBlockOf(value.length, at - before);
  }
  const block = Buffer.allocUnsafe(STORED_HEADER_BYTES + value.length);
  block[0] = 0; // not final, stored
  block.writeUInt16LE(value.length, 1);
  block.writeUInt16LE(~value.length & 0xffff, 3);
  block.write(value, STORED_HEADER_BYTES, 'latin1');
  return block;
}
