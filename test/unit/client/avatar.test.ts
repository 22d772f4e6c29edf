import { describe, expect, it } from 'vitest';
import { checkSelection, sniffImage } from '../../../client/lib/avatar.ts';
import { avatarTone, initials } from '../../../core/avatar.ts';

const MB = 1024 * 1024;

describe('avatar checks before upload', () => {
  it('wants exactly one file of at most 5 MB', () => {
    expect(checkSelection([], 5 * MB)).toBe('none');
    expect(checkSelection([{ size: 10 }, { size: 10 }], 5 * MB)).toBe('oneFile');
    expect(checkSelection([{ size: 5 * MB + 1 }], 5 * MB)).toBe('oversize');
    expect(checkSelection([{ size: 5 * MB }], 5 * MB)).toBeNull();
  });

  it('recognises PNG and JPEG by their first bytes only', () => {
    expect(sniffImage(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('png');
    expect(sniffImage(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]))).toBe('jpeg');
    expect(sniffImage(new TextEncoder().encode('GIF89a..'))).toBeNull();
    expect(sniffImage(new TextEncoder().encode('<svg xml'))).toBeNull();
    expect(sniffImage(new Uint8Array([0x89, 0x50]))).toBeNull();
  });

  it('draws the same initials and tone as the server-rendered Avatar', () => {
    expect(initials('Ada Lovelace')).toBe('AL');
    expect(initials('élodie martin')).toBe('ÉM');
    expect(avatarTone('Ada Lovelace')).toBe(avatarTone('Ada Lovelace'));
    expect(avatarTone('Ada Lovelace')).toBeGreaterThanOrEqual(0);
    expect(avatarTone('Ada Lovelace')).toBeLessThan(6);
  });
});
