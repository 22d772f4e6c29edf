import { describe, expect, it } from 'vitest';
import { nextNonce } from '../../../server/security/headers.ts';

describe('CSP nonces from the random pool', () => {
  it('are 128 bits in base64 and never repeat across several refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i += 1) {
      const nonce = nextNonce();
      expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
      seen.add(nonce);
    }
    expect(seen.size).toBe(2000);
  });
});
