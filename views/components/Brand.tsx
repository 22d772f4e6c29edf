import { useView } from '../context.ts';
import { BrandLogo } from './BrandLogo.tsx';
import { cx } from './cx.ts';

/**
 * The product's mark and name (BRAND_NAME, BRAND_LOGO_URL): at the top of every auth screen and in the
 * signed-in header, linking home. The name is text, so it reads and translates as the operator wrote it.
 */
export function Brand(props: { className?: string; href?: string }) {
  const { brand } = useView();
  return (
    <a className={cx('brand', props.className)} href={props.href ?? '/'}>
      <BrandLogo className="brand__logo" size={32} />
      <span className="brand__name">{brand.name}</span>
    </a>
  );
}
