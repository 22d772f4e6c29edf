// Spec §5 avatar rules in one dependency-free module: the server relay, the page and the browser
// island all read them from here, with the initials drawn when there is no picture.

export const AVATAR_MAX_BYTES = 5_242_880;
export const AVATAR_MAX_MEGABYTES = AVATAR_MAX_BYTES / 1024 / 1024;
export const AVATAR_ACCEPT = 'image/png,image/jpeg,.png,.jpg,.jpeg';
export const AVATAR_TYPES: readonly string[] = ['image/png', 'image/jpg', 'image/jpeg'];
export const AVATAR_EXTENSIONS: readonly string[] = ['png', 'jpg', 'jpeg'];

/** Spec §5 error keys and the translation key of each (errorMessage.*). */
export const AVATAR_ERROR_KEYS = {
  limit_file_size: 'errorMessage.avatarOversize',
  only_one_file_allowed: 'errorMessage.onlyOnFileAllowed',
  valid_type: 'errorMessage.validFile',
  file_type_not_exist: 'errorMessage.fileTypeNotExist',
} as const;

export type ImageType = 'png' | 'jpeg';

/** Enough bytes to recognise PNG (8) and JPEG (3) signatures. */
export const SIGNATURE_BYTES = 8;

/** The type by the file's first bytes only: never by its name or the type the browser declared. */
export function sniffImageType(head: Uint8Array): ImageType | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (head.length >= 8 && png.every((byte, i) => head[i] === byte)) return 'png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  return null;
}

// Initials avatars: the page and the avatar island draw the same letters and tone.

/** The first letter or digit of each word (a word of punctuation only has none). */
function leadingLetters(text: string): string[] {
  return text
    .split(/[\s@._-]+/)
    .map((word) => /[\p{L}\p{N}]/u.exec(word)?.[0])
    .filter((letter): letter is string => letter !== undefined);
}

/**
 * Up to two letters: first letters of the first and last words, or the first letter of an email. A note in
 * brackets is not part of the name ("Document app (demo)" is DA, not "D(").
 */
export function initials(name: string): string {
  const withoutNotes = name.replace(/\([^)]*\)|\[[^\]]*\]/g, ' ');
  const letters = leadingLetters(withoutNotes).length > 0 ? leadingLetters(withoutNotes) : leadingLetters(name);
  if (letters.length === 0) return '?';
  const last = letters.length > 1 && !name.includes('@') ? letters[letters.length - 1]! : '';
  return (letters[0]! + last).toLocaleUpperCase();
}

/** One of six background tones, stable for a name, so initials avatars are told apart. */
export function avatarTone(name: string): number {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return hash % 6;
}
