import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COPY_DISTANCE_MAX, copyBlock } from '../../server/deflate-copy.ts';
import { FINAL_BLOCK } from '../../server/assets.ts';

/** A raw deflate stream: `data` in one stored block, then `blocks`, then the empty final block. */
function streamOf(data: Buffer, blocks: Buffer[]): Buffer {
  const header = Buffer.from([0, data.length & 0xff, data.length >> 8, ~data.length & 0xff, (~data.length >> 8) & 0xff]);
  return Buffer.concat([header, data, ...blocks, FINAL_BLOCK]);
}

/** What inflating a copy of `length` bytes from `distance` back gives: byte by byte, so a copy may overlap itself. */
function copied(data: Buffer, length: number, distance: number): Buffer {
  const out = [...data];
  for (let i = 0; i < length; i++) out.push(out[out.length - distance]!);
  return Buffer.from(out);
}

describe('copyBlock: a deflate block repeating earlier bytes (decision 253)', () => {
  // Every length and distance symbol's base, the value before the next base, and the ends of the ranges.
  const lengths = [3, 4, 10, 11, 12, 13, 18, 19, 22, 35, 36, 64, 88, 114, 115, 130, 131, 226, 227, 256, 257, 258];
  const distances = [1, 2, 4, 5, 6, 7, 8, 24, 25, 36, 64, 100, 1024, 1025, 4096, 4097, 8192, 16384, 16385, 24576, 24577, 32767, 32768];

  it.each(lengths)('length %i at every distance symbol inflates to the bytes it copies', (length) => {
    const data = randomBytes(COPY_DISTANCE_MAX);
    for (const distance of distances) {
      expect(inflateRawSync(streamOf(data, [copyBlock(length, distance)])).equals(copied(data, length, distance)), `distance ${distance}`).toBe(true);
    }
  });

  it('copies follow one another, each ending on a byte boundary as a sync flush does, in about 9 bytes', () => {
    const data = randomBytes(4000);
    const blocks = [copyBlock(36, 3000), copyBlock(88, 1000), copyBlock(24, 36)];
    let expected = copied(data, 36, 3000);
    expected = copied(expected, 88, 1000);
    expected = copied(expected, 24, 36);
    expect(inflateRawSync(streamOf(data, blocks)).equals(expected)).toBe(true);
    for (const block of blocks) {
      expect(block.subarray(-4).equals(Buffer.from([0, 0, 0xff, 0xff]))).toBe(true);
      expect(block.length).toBeLessThanOrEqual(10);
    }
  });

  it('a copy deflate cannot express is refused', () => {
    for (const [length, distance] of [
      [2, 10],
      [259, 10],
      [10, 0],
      [10, COPY_DISTANCE_MAX + 1],
    ] as const) {
      expect(() => copyBlock(length, distance)).toThrow(RangeError);
    }
  });
});
