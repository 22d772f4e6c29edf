// MurmurHash3 (x86, 32-bit, seed 0) of a UTF-8 string: Hydra suffixes its login and consent CSRF cookie
// names with the decimal hash of the client id, so each client's flow has its own cookie.
export function murmur3(text: string): number {
  const data = Buffer.from(text, 'utf8');
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = 0;
  const blocks = data.length >> 2;
  for (let i = 0; i < blocks; i++) {
    let k = data.readUInt32LE(i * 4);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = blocks * 4;
  const rest = data.length & 3;
  if (rest > 0) {
    let k = 0;
    if (rest >= 3) k ^= data[tail + 2]! << 16;
    if (rest >= 2) k ^= data[tail + 1]! << 8;
    k ^= data[tail]!;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= data.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
