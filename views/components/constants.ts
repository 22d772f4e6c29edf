// Spec §2 vocabulary and §9 constants, shared by components, the stylesheet's tests and the islands.

/** The spec's variants, plus DANGER: ours, for destructive actions (deleting an account). */
export const BUTTON_VARIANTS = ['PRIMARY', 'PRIMARY_DARK', 'SECONDARY', 'SECONDARY_DARK', 'TERTIARY', 'HYPERLINK', 'PRIMARY_DIM', 'GHOST', 'DANGER'] as const;
export type ButtonVariant = (typeof BUTTON_VARIANTS)[number];

/** Button heights in px. */
export const BUTTON_SIZES = { XXS: 28, XS: 32, SM: 36, MD: 40, LG: 44, XL: 48, XXL: 56 } as const;
export type ButtonSize = keyof typeof BUTTON_SIZES;

export const INPUT_HEIGHT = 48;

/** Avatar diameters in px. */
export const AVATAR_SIZES = { XXS: 32, XS: 36, SM: 40, MD: 44, LG: 48, XL: 64, XXL: 80 } as const;
export type AvatarSize = keyof typeof AVATAR_SIZES;

export const DIALOG_ICONS = ['success', 'warn', 'error', 'info', 'mood'] as const;
export type DialogIcon = (typeof DIALOG_ICONS)[number];

/** Dialog max widths in px. */
export const DIALOG_WIDTHS = { SM: 400, MD: 480, MDX: 560, LG: 640, XL: 800 } as const;
export type DialogWidth = keyof typeof DIALOG_WIDTHS;

export const TOAST_VARIANTS = ['success', 'error', 'info', 'warning'] as const;
export type ToastVariant = (typeof TOAST_VARIANTS)[number];
export const TOAST_LIMIT = 3;
export const TOAST_DURATION_MS = 5000;
export const TOAST_WIDTH = 320;

export const TOOLTIP_ENTER_DELAY_MS = 100;
export const TOOLTIP_TOUCH_DELAY_MS = 700;
export const TOOLTIP_LEAVE_TOUCH_DELAY_MS = 1500;
export const POPOVER_TRANSITION_MS = 250;

/** App breakpoints (px) and layout breakpoints (em), as written in public/styles/app.css. */
export const BREAKPOINTS = { xs: 480, sm: 600, md: 768, lg: 992, lgr: 1024, xl: 1200, xxl: 1440, xxxl: 1600 } as const;
export const LAYOUT_BREAKPOINTS = { xs: 36, sm: 48, md: 62, lg: 75, xl: 88 } as const;

export const THEMES = ['light', 'dark', 'auto'] as const;
export type Theme = (typeof THEMES)[number];
export const THEME_STORAGE_KEY = 'theme';

/** Path segment on which the session-changed dialog never appears. */
export const AUTH_GATEWAY_SEGMENT = '/authentication/gateway';
