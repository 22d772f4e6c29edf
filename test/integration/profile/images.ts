// Real image files made in the test itself (no binary fixtures): a valid PNG written chunk by chunk
// with zlib, optionally carrying metadata chunks that a stored avatar must not keep.
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([length, typeAndData, crc]);
}

/** An RGB PNG of the given size filled with one colour; `text` adds a tEXt and an eXIf chunk holding it. */
export function makePng(options: { width?: number; height?: number; rgb?: [number, number, number]; text?: string } = {}): Buffer {
  const width = options.width ?? 16;
  const height = options.height ?? 16;
  const [r, g, b] = options.rgb ?? [200, 60, 30];
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x += 1) row.set([r, g, b], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const chunks = [chunk('IHDR', header)];
  if (options.text) {
    chunks.push(chunk('tEXt', Buffer.from(`Comment\0${options.text}`, 'latin1')));
    // A minimal little-endian TIFF header followed by the marker: enough for an eXIf chunk to be present.
    chunks.push(chunk('eXIf', Buffer.concat([Buffer.from('II*\0\x08\0\0\0', 'latin1'), Buffer.from(options.text, 'latin1')])));
  }
  chunks.push(chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks]);
}

/** A 1×1 GIF89a: a real image of a type avatars refuse. */
export const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

/** HTML pretending to be a PNG by its name. */
export const HTML_AS_PNG = Buffer.from('<!doctype html><script>alert(1)</script>');

/** Names of the PNG chunks in a file, in order. */
export function pngChunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let offset = 8; offset + 8 <= png.length;) {
    const length = png.readUInt32BE(offset);
    types.push(png.toString('latin1', offset + 4, offset + 8));
    offset += 12 + length;
  }
  return types;
}
