// The consent rules of core/consent.ts (spec §4, §9): the EU/EEA+UK list, the US states rule, the
// decision order, and the seven Consent Mode v2 signals.
import { describe, expect, test } from 'vitest';
import { consentState, CONSENT_SIGNALS, decideConsent, OPT_IN_COUNTRIES, optInRequired } from '../../../core/consent.ts';

describe('optInRequired', () => {
  test('the 27 EU states, the rest of the EEA and the UK (as GB) are asked', () => {
    const eu = 'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' ');
    expect(eu).toHaveLength(27);
    for (const country of [...eu, 'IS', 'LI', 'NO', 'GB']) expect(optInRequired({ countryCode: country }), country).toBe(true);
    expect(OPT_IN_COUNTRIES.size).toBe(31);
    // ISO codes only: "UK" and "EL" are not country codes, and lower case is the same country.
    expect(optInRequired({ countryCode: 'UK' })).toBe(false);
    expect(optInRequired({ countryCode: 'EL' })).toBe(false);
    expect(optInRequired({ countryCode: 'fr' })).toBe(true);
  });

  test('elsewhere not asked, Switzerland included', () => {
    for (const country of ['JP', 'BR', 'CA', 'AU', 'IN', 'CH', 'VN']) expect(optInRequired({ countryCode: country }), country).toBe(false);
  });

  test('in the US only California and Virginia, by code, ISO 3166-2 code or name, any case', () => {
    for (const region of ['CA', 'ca', 'US-CA', 'California', 'CALIFORNIA', 'VA', 'US-VA', 'Virginia'])
      expect(optInRequired({ countryCode: 'US', regionName: region }), region).toBe(true);
    for (const region of ['TX', 'Texas', 'NY', 'West Virginia', 'WV', 'US-WA', 'Carolina'])
      expect(optInRequired({ countryCode: 'US', regionName: region }), region).toBe(false);
  });

  test('unknown: no country, a placeholder (XX, T1, unknown), a malformed one, or a US visitor without a state', () => {
    for (const location of [
      undefined,
      {},
      { countryCode: 'XX' },
      { countryCode: 'T1' },
      { countryCode: 'unknown' },
      { countryCode: 'FRA' },
      { countryCode: 'US' },
      { countryCode: 'US', regionName: 'unknown' },
    ])
      expect(optInRequired(location), JSON.stringify(location)).toBeUndefined();
  });
});

describe('decideConsent', () => {
  test('a saved choice first, whatever the location', () => {
    expect(decideConsent({ saved: 'true', location: { countryCode: 'FR' }, askByDefault: true })).toEqual({ allowed: true, banner: false, source: 'cookie' });
    expect(decideConsent({ saved: 'false', location: { countryCode: 'JP' }, askByDefault: false })).toEqual({
      allowed: false,
      banner: false,
      source: 'cookie',
    });
  });

  test('then the location, then the default; a cookie with another value counts as none', () => {
    expect(decideConsent({ saved: 'yes', location: { countryCode: 'DE' }, askByDefault: false })).toEqual({ allowed: false, banner: true, source: 'location' });
    expect(decideConsent({ location: { countryCode: 'US', regionName: 'TX' }, askByDefault: true })).toEqual({
      allowed: true,
      banner: false,
      source: 'location',
    });
    expect(decideConsent({ askByDefault: true })).toEqual({ allowed: false, banner: true, source: 'default' });
    expect(decideConsent({ location: { countryCode: 'XX' }, askByDefault: false })).toEqual({ allowed: true, banner: false, source: 'default' });
  });
});

describe('consentState', () => {
  test('seven signals; granting grants every one, otherwise only security', () => {
    expect(CONSENT_SIGNALS).toHaveLength(7);
    expect(Object.values(consentState(true))).toEqual(Array(7).fill('granted'));
    const denied = consentState(false);
    expect(Object.keys(denied)).toEqual([...CONSENT_SIGNALS]);
    expect(Object.entries(denied).filter(([, value]) => value === 'granted')).toEqual([['security_storage', 'granted']]);
  });
});
