// The session-changed dialog never shows on any gateway page (spec §2, decision 140): the gateway itself,
// the mobile callback and the desktop "done" page all fall under AUTH_GATEWAY_SEGMENT.
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../core/routes.ts';
import { isSessionDialogSuppressed } from '../../views/components/SessionChangedDialog.tsx';

describe('gateway paths', () => {
  it.each([ROUTES.gateway, ROUTES.gatewayCallback, ROUTES.gatewayDone])('%s suppresses the session-changed dialog', (path) => {
    expect(isSessionDialogSuppressed(`${path}?state=abcdefgh`)).toBe(true);
  });
  it('other OAuth2 pages do not', () => {
    expect(isSessionDialogSuppressed(ROUTES.openDrive)).toBe(false);
    expect(isSessionDialogSuppressed(ROUTES.consent)).toBe(false);
  });
});
