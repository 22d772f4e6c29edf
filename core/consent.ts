/**
 * Cookie consent (spec §4, §9): who is asked before non-essential cookies, and the Google Consent Mode v2
 * signals that follow from the answer. One place for the country list and the US states rule.
 *
 * Facts (../shared/contracts/social-oauth2-realtime-consent.md §5): ISO 3166-1 codes, so the UK is GB and
 * Greece GR; Consent Mode takes no "EU" region, hence the explicit list. Switzerland is not on it (whether
 * Google's EU policy covers CH is unverified); adding it is one line here.
 */

/** The 27 EU member states. */
const EU_COUNTRIES = [
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE',
  'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
] as const; // prettier-ignore

/** Countries where non-essential cookies wait for a yes: the EU, the rest of the EEA (IS, LI, NO) and the UK (GB). */
export const OPT_IN_COUNTRIES: ReadonlySet<string> = new Set<string>([...EU_COUNTRIES, 'IS', 'LI', 'NO', 'GB']);

/** In the US, only these states (spec §4), by ISO 3166-2 code and by name: CDNs send one or the other. */
export const OPT_IN_US_STATES: Readonly<Record<string, string>> = { CA: 'california', VA: 'virginia' };

export type VisitorLocation = { countryCode?: string; regionName?: string };

/** True: ask first; false: non-essential cookies are on unless refused; undefined: the location is unknown. */
export function optInRequired(location: VisitorLocation | undefined): boolean | undefined {
  const country = location?.countryCode?.trim().toUpperCase();
  if (!country || !/^[A-Z]{2}$/.test(country) || country === 'XX' || country === 'T1') return undefined;
  if (OPT_IN_COUNTRIES.has(country)) return true;
  if (country !== 'US') return false;
  // `US-CA`, `CA`, `California`, `california`: all the same state.
  const region = (location?.regionName ?? '').trim().toLowerCase().replace(/^us-/, '');
  if (region === '' || region === 'unknown') return undefined;
  // No destructuring: the islands import this file and Safari 13 is among their targets.
  return Object.keys(OPT_IN_US_STATES).some((code) => region === code.toLowerCase() || region === OPT_IN_US_STATES[code]);
}

/** The saved choice, as the `cookie_banner_accept` cookie holds it. */
export const CONSENT_COOKIE = 'cookie_banner_accept';
export const CONSENT_COOKIE_VALUES = { accepted: 'true', declined: 'false' } as const;

export type ConsentDecision = {
  /** Non-essential cookies (analytics, the tag manager) may be used now. */
  allowed: boolean;
  /** Show the banner: nothing saved yet and the visitor must be asked. */
  banner: boolean;
  source: 'cookie' | 'location' | 'default';
};

/** Saved choice first, then location, then the configured default (`askByDefault`). */
export function decideConsent(input: { saved?: string; location?: VisitorLocation; askByDefault: boolean }): ConsentDecision {
  if (input.saved === CONSENT_COOKIE_VALUES.accepted) return { allowed: true, banner: false, source: 'cookie' };
  if (input.saved === CONSENT_COOKIE_VALUES.declined) return { allowed: false, banner: false, source: 'cookie' };
  const required = optInRequired(input.location);
  if (required !== undefined) return { allowed: !required, banner: required, source: 'location' };
  return { allowed: !input.askByDefault, banner: input.askByDefault, source: 'default' };
}

/** Google Consent Mode v2's seven signals: the four of v2 and the three privacy parameters. */
export const CONSENT_SIGNALS = [
  'ad_storage',
  'ad_user_data',
  'ad_personalization',
  'analytics_storage',
  'functionality_storage',
  'personalization_storage',
  'security_storage',
] as const;

export type ConsentSignal = (typeof CONSENT_SIGNALS)[number];
export type ConsentState = Record<ConsentSignal, 'granted' | 'denied'>;

/** Granting sets every signal to granted (spec §4); otherwise all denied but security, which is essential. */
export function consentState(granted: boolean): ConsentState {
  const state = {} as ConsentState;
  for (const signal of CONSENT_SIGNALS) state[signal] = granted || signal === 'security_storage' ? 'granted' : 'denied';
  return state;
}

/** How long the tag manager waits for a `consent update` before firing tags with the default (ms). */
export const CONSENT_WAIT_FOR_UPDATE_MS = 500;
