/**
 * Each social provider's own mark, inline (no request, no third-party origin), drawn as the providers'
 * branding rules ask:
 *   google     the four-colour "G", unaltered, on the button's white surface (Google Identity branding)
 *   microsoft  the four squares #F25022 #7FBA00 #00A4EF #FFB900 (Microsoft identity platform branding)
 *   apple      the Apple logo in the button's own text colour: black on white, white on black (Apple HIG)
 *   dropbox    the open box glyph in Dropbox Blue #0061FF
 *   other      a neutral sign-in mark in the text colour, for providers we have no artwork for
 * The marks are decorative (`aria-hidden`): the button's text names the provider.
 */
import type { ReactElement } from 'react';
import { knownProvider, type SocialProvider } from '../../../core/kratos/social.ts';

const MARKS: Readonly<Record<SocialProvider, ReactElement>> = {
  google: (
    <svg viewBox="0 0 48 48">
      <path
        fill="#EA4335"
        d="M24 9.5c3.54 0 6.71 1.22 9.21 3.6l6.85-6.85C35.9 2.38 30.47 0 24 0 14.62 0 6.51 5.38 2.56 13.22l7.98 6.19C12.43 13.72 17.74 9.5 24 9.5z"
      />
      <path fill="#4285F4" d="M46.98 24.55c0-1.57-.15-3.09-.38-4.55H24v9.02h12.94c-.58 2.96-2.26 5.48-4.78 7.18l7.73 6c4.51-4.18 7.09-10.36 7.09-17.65z" />
      <path
        fill="#FBBC05"
        d="M10.53 28.59c-.48-1.45-.76-2.99-.76-4.59s.27-3.14.76-4.59l-7.98-6.19C.92 16.46 0 20.12 0 24c0 3.88.92 7.54 2.56 10.78l7.97-6.19z"
      />
      <path
        fill="#34A853"
        d="M24 48c6.48 0 11.93-2.13 15.89-5.81l-7.73-6c-2.15 1.45-4.92 2.3-8.16 2.3-6.26 0-11.57-4.22-13.47-9.91l-7.98 6.19C6.51 42.62 14.62 48 24 48z"
      />
    </svg>
  ),
  microsoft: (
    <svg viewBox="0 0 21 21">
      <rect x="1" y="1" width="9" height="9" fill="#F25022" />
      <rect x="11" y="1" width="9" height="9" fill="#7FBA00" />
      <rect x="1" y="11" width="9" height="9" fill="#00A4EF" />
      <rect x="11" y="11" width="9" height="9" fill="#FFB900" />
    </svg>
  ),
  apple: (
    <svg viewBox="0 0 24 24">
      <path
        fill="currentColor"
        d="M12.152 6.896c-.948 0-2.415-1.078-3.96-1.04-2.04.027-3.91 1.183-4.961 3.014-2.117 3.675-.546 9.103 1.519 12.09 1.013 1.454 2.208 3.09 3.792 3.039 1.52-.065 2.09-.987 3.935-.987 1.831 0 2.35.987 3.96.948 1.637-.026 2.676-1.48 3.676-2.948 1.156-1.688 1.636-3.325 1.662-3.415-.039-.013-3.182-1.221-3.22-4.857-.026-3.04 2.48-4.494 2.597-4.559-1.429-2.09-3.623-2.324-4.39-2.376-2-.156-3.675 1.09-4.61 1.09zM15.53 3.83c.843-1.012 1.4-2.427 1.245-3.83-1.207.052-2.662.805-3.532 1.818-.78.896-1.454 2.338-1.273 3.714 1.338.104 2.715-.688 3.559-1.701"
      />
    </svg>
  ),
  dropbox: (
    <svg viewBox="0 0 24 24">
      <path
        fill="#0061FF"
        d="M6 1.807 0 5.629l6 3.822 6.001-3.822L6 1.807zM18 1.807l-6 3.822 6 3.822 6-3.822-6-3.822zM0 13.274l6 3.822 6.001-3.822L6 9.452l-6 3.822zM18 9.452l-6 3.822 6 3.822 6-3.822-6-3.822zM6 18.371l6.001 3.822 6-3.822-6-3.822L6 18.371z"
      />
    </svg>
  ),
};

/** A door with an arrow: "sign in", in the text colour. */
const NEUTRAL = (
  <svg viewBox="0 0 24 24">
    <path
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      d="M14 4h4a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2h-4M10 16l4-4-4-4M14 12H4"
    />
  </svg>
);

/** The brand class a provider button takes (`btn--social-<brand>`), `other` for unknown providers. */
export function providerBrand(provider: string): SocialProvider | 'other' {
  return knownProvider(provider) ?? 'other';
}

export function ProviderMark(props: { provider: string }) {
  const provider = knownProvider(props.provider);
  return (
    <span className="provider-mark" aria-hidden="true" data-mark={provider ?? 'other'}>
      {provider ? MARKS[provider] : NEUTRAL}
    </span>
  );
}
