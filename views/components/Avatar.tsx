import { AVATAR_SIZES, type AvatarSize } from './constants.ts';
import { avatarTone, initials } from '../../core/avatar.ts';
import { cx } from './cx.ts';

export { avatarTone, initials };

export type AvatarProps = {
  name: string;
  src?: string;
  size?: AvatarSize;
  variant?: 'circle' | 'rounded';
  className?: string;
};

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
