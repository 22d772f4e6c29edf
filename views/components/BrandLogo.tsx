import { useView } from '../context.ts';

/** BRAND_LOGO_URL's default: the bundled logo (public/logo.svg), which pages draw inline instead of fetching. */
export const DEFAULT_LOGO_URL = '/logo.svg';

/** The bundled logo's shapes, as in public/logo.svg and public/favicon.svg (test/unit/components/brand-logo.test.tsx keeps them equal). */
const LOGO_SHAPES =
  '<rect width="64" height="64" rx="14" fill="#0b63ce"/><path d="M20 14h17l9 9v27H20z" fill="#fff"/><path d="M37 14v9h9" fill="#cfe0f6"/><path d="M26 33h14M26 39h14M26 45h9" stroke="#0b63ce" stroke-width="3" stroke-linecap="round"/>';

/** The logo as a standalone SVG document, as public/logo.svg holds it. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">${LOGO_SHAPES}</svg>`;

/**
 * The favicon as a data: address (decision 195): the page names its icon in itself, so a browser fetches
 * neither /favicon.svg nor /favicon.ico for it (both stay served for other clients). img-src allows data:.
 */
export const FAVICON_DATA_URI = `data:image/svg+xml,${encodeURIComponent(LOGO_SVG)}`;

/**
 * The brand's logo (BRAND_LOGO_URL): the bundled one drawn in the page (decision 195), so it costs a
 * guest screen no request (a hidden <img> would still be fetched); an operator's logo stays an image.
 */
export function BrandLogo(props: { className: string; size: number }) {
  const { brand } = useView();
  const size = String(props.size);
  if (brand.logoUrl !== DEFAULT_LOGO_URL) return <img className={props.className} src={brand.logoUrl} alt="" width={size} height={size} />;
  return (
    <svg
      className={props.className}
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 64 64"
      width={size}
      height={size}
      aria-hidden="true"
      focusable="false"
      dangerouslySetInnerHTML={{ __html: LOGO_SHAPES }}
    />
  );
}
