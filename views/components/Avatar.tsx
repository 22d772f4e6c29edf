import { AVATAR_SIZES, type AvatarSize } from './constants.ts';
import { cx } from './cx.ts';

export type AvatarProps = {
  name: string;
  src?: string;
  size?: AvatarSize;
  variant?: 'circle' | 'rounded';
  className?: string;
};

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

export function Avatar(props: AvatarProps) {
  const { name, src, size = 'MD', variant = 'circle', className } = props;
  const px = AVATAR_SIZES[size];
  const classes = cx('avatar', `avatar--${size}`, `avatar--${variant}`, !src && `avatar--tone${avatarTone(name)}`, className);
  if (src) {
    return (
      <span className={classes}>
        <img className="avatar__img" src={src} alt={name} width={px} height={px} />
      </span>
    );
  }
  return (
    <span className={classes} role="img" aria-label={name}>
      <span aria-hidden="true">{initials(name)}</span>
    </span>
  );
}
