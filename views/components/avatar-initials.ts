// Plain TypeScript (no React) so the avatar island can draw the same initials in the browser.

/** Up to two letters: first letters of the first and last words, or the first letter of an email. */
export function initials(name: string): string {
  const words = name.trim().split(/[\s@._-]+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = Array.from(words[0]!)[0] ?? '';
  const last = words.length > 1 && !name.includes('@') ? (Array.from(words[words.length - 1]!)[0] ?? '') : '';
  return (first + last).toLocaleUpperCase();
}

/** One of six background tones, stable for a name, so initials avatars are told apart. */
export function avatarTone(name: string): number {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)!) >>> 0;
  return hash % 6;
}
