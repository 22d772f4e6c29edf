/**
 * A deflate block (RFC 1951) that repeats bytes from earlier in the stream: one match of `length` bytes at
 * `distance` back, in fixed Huffman codes, then an empty stored block, so that it ends on a byte boundary
 * as a sync flush does. A kept template (server/page-templates.ts) sends a value its page holds more than
 * once (a flow id, a CSRF token, the CSP nonce) stored once, then as ~9 bytes each time it comes again.
 */

/** A match may copy 3 to 258 bytes from at most 32 KiB back. */
export const COPY_LENGTHS = { min: 3, max: 258 } as const;
export const COPY_DISTANCE_MAX = 32 * 1024;

// Length symbols 257–285: the shortest length each stands for and how many extra bits follow it.
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
// Distance symbols 0–29.
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const END_OF_BLOCK = 256;

/** The last symbol whose base is at most `value`. */
function symbolFor(bases: readonly number[], value: number): number {
  let symbol = 0;
  while (symbol + 1 < bases.length && bases[symbol + 1]! <= value) symbol++;
  return symbol;
}

/** Deflate's bit order: numbers least significant bit first, Huffman codes most significant bit first. */
class BitWriter {
  private readonly bytes: number[] = [];
  private bitCount = 0;
  private current = 0;

  bits(value: number, count: number): void {
    for (let i = 0; i < count; i++) this.bit((value >>> i) & 1);
  }

  code(code: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) this.bit((code >>> i) & 1);
  }

  /** What was written, the last byte padded with zero bits. */
  padded(): number[] {
    if (this.bitCount > 0) this.bytes.push(this.current);
    this.bitCount = 0;
    this.current = 0;
    return this.bytes;
  }

  private bit(bit: number): void {
    this.current |= bit << this.bitCount;
    if (++this.bitCount === 8) {
      this.bytes.push(this.current);
      this.bitCount = 0;
      this.current = 0;
    }
  }
}

/** A fixed-Huffman literal/length symbol: 256–279 in 7 bits from 0, 280–287 in 8 bits from 0xC0. */
function lengthSymbol(writer: BitWriter, symbol: number): void {
  if (symbol <= 279) writer.code(symbol - 256, 7);
  else writer.code(0xc0 + symbol - 280, 8);
}

/** The block that copies `length` bytes from `distance` back, ending on a byte boundary. */
export function copyBlock(length: number, distance: number): Buffer {
  if (length < COPY_LENGTHS.min || length > COPY_LENGTHS.max || distance < 1 || distance > COPY_DISTANCE_MAX) {
    throw new RangeError(`no deflate match copies ${length} bytes from ${distance} back`);
  }
  const writer = new BitWriter();
  writer.bits(0, 1); // not final
  writer.bits(1, 2); // fixed Huffman codes
  const lengthAt = symbolFor(LENGTH_BASE, length);
  lengthSymbol(writer, 257 + lengthAt);
  writer.bits(length - LENGTH_BASE[lengthAt]!, LENGTH_EXTRA[lengthAt]!);
  const distanceAt = symbolFor(DISTANCE_BASE, distance);
  writer.code(distanceAt, 5);
  writer.bits(distance - DISTANCE_BASE[distanceAt]!, DISTANCE_EXTRA[distanceAt]!);
  lengthSymbol(writer, END_OF_BLOCK);
  // An empty stored block: not final, type 00, padding to the byte, then LEN 0 and NLEN 0xFFFF.
  writer.bits(0, 3);
  return Buffer.from([...writer.padded(), 0x00, 0x00, 0xff, 0xff]);
}
