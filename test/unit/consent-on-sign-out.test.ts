// Which way back from the restore offer names a consent its sign-out declines (server/routes/consent-on-sign-out.ts).
import { describe, expect, test } from 'vitest';
import { consentChallengeIn } from '../../server/routes/consent-on-sign-out.ts';

const OURS = 'https://accounts.example.com';

describe('consentChallengeIn', () => {
  test('our consent page, as a path or an address, gives its challenge', () => {
    expect(consentChallengeIn('/consent?consent_challenge=abc123', OURS)).toBe('abc123');
    expect(consentChallengeIn(`${OURS}/consent?consent_challenge=abc123&x=1`, OURS)).toBe('abc123');
  });

  test('anything else gives none: another origin, another page, no or a malformed challenge, no way back', () => {
    expect(consentChallengeIn('https://evil.example/consent?consent_challenge=abc123', OURS)).toBeUndefined();
    expect(consentChallengeIn('/open-drive?consent_challenge=abc123', OURS)).toBeUndefined();
    expect(consentChallengeIn('/consent', OURS)).toBeUndefined();
    expect(consentChallengeIn('/consent?consent_challenge=', OURS)).toBeUndefined();
    expect(consentChallengeIn('/consent?consent_challenge=has%20space%3Cscript%3E', OURS)).toBeUndefined();
    expect(consentChallengeIn(undefined, OURS)).toBeUndefined();
    expect(consentChallengeIn('http://[bad', OURS)).toBeUndefined();
  });
});
