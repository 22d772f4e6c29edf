export type ThemeChoice = 'light' | 'dark' | 'auto';
export const THEME_KEY = 'theme';

/** What localStorage holds, made safe: anything unknown means the default, light. */
export function parseTheme(value: string | null | undefined): ThemeChoice {
  return value === 'dark' || value === 'auto' ? value : 'light';
}

/** The theme to paint: the choice itself, or the system's preference for auto. */
export function resolveTheme(choice: ThemeChoice, systemDark: boolean): 'light' | 'dark' {
  return choice === 'dark' || (choice === 'auto' && systemDark) ? 'dark' : 'light';
}
