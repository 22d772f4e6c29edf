/**
 * Raw deflate of a page's bytes on node:zlib streams that are kept and reused (decision 245), not made per
 * call: a handle made per page is freed only by a full garbage collection, and under load those kept V8
 * marking the old generation (decision 240). A kept stream is reset between pages, so no page's bytes can
 * be referred to by the next one. Streams beyond what is kept idle are closed at once, which frees their
 * memory without waiting for a collection.
 */
import { constants, createDeflateRaw, type DeflateRaw } from 'node:zlib';

// Level 4, the first with lazy matching: smaller than level 2 on our pages (the settings page 4,817 B
// against 5,091 B) for about the same CPU (decision 245's figures).
const PAGE_LEVEL = 4;
// The libuv thread pool runs four zlib jobs at once by default; more streams are made when needed, and closed after.
const STREAMS_KEPT = 4;

/** A kept stream and the output it has written for the page on it now (listened to for its whole life). */
type Deflater = { stream: DeflateRaw; chunks: Buffer[] };

const idle: Deflater[] = [];

function newDeflater(): Deflater {
  const deflater: Deflater = { stream: createDeflateRaw({ level: PAGE_LEVEL }), chunks: [] };
  deflater.stream.on('data', (chunk: Buffer) => deflater.chunks.push(chunk));
  return deflater;
}

/** One page through one stream: what it wrote once the sync flush is done. */
function deflateOn({ stream, chunks }: Deflater, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.write(bytes);
    stream.flush(constants.Z_SYNC_FLUSH, () => {
      stream.off('error', reject);
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
  });
}

/**
 * `bytes` as raw deflate blocks ending with a sync flush, on a byte boundary and not final: the caller
 * puts it in a gzip member and ends the stream (another part may follow first, decision 195).
 */
export async function deflatePagePart(bytes: Buffer): Promise<Buffer> {
  const deflater = idle.pop() ?? newDeflater();
  try {
    const deflated = await deflateOn(deflater, bytes);
    deflater.chunks = [];
    deflater.stream.reset();
    if (idle.length < STREAMS_KEPT) idle.push(deflater);
    else deflater.stream.close();
    return deflated;
  } catch (error) {
    deflater.stream.destroy();
    throw error;
  }
}
