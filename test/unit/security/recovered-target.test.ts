// Where a browser goes after a right recovery code: Kratos names its settings ui_url (our
// /profile-settings) or a continue_with item; we send it to the focused reset screen, and never
// anywhere off the allow-list.
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.ts';
import { screenQuery } from '../../../server/flows/query.ts';
import { recoveredTarget } from '../../../server/routes/forgot-password.ts';

const config = loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'https://accounts.example.com', ALLOWED_RETURN_URLS: 'https://docs.example.com/app' });
const FLOW = '3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1';

function requestWith(query: Record<string, string>): Request {
  return { app: { locals: { config } }, query } as unknown as Request;
}

function target(redirectTo: string | undefined, query: Record<string, string> = {}, continueWith?: { action: string; flow?: { id: string } }[]) {
  const req = requestWith(query);
  return recoveredTarget(req, screenQuery(req, config), redirectTo, continueWith);
}

describe('recoveredTarget', () => {
  it('turns the settings ui_url into the reset-password screen for the same flow', () => {
    expect(target(`https://accounts.example.com/profile-settings?flow=${FLOW}`)).toBe(`/forgot-password/reset?flow=${FLOW}`);
  });

  it('keeps return_to but drops the address parameters on the way', () => {
    expect(target(`https://accounts.example.com/profile-settings?flow=${FLOW}`, { return_to: '/x', email: 'a@b.co' })).toBe(
      `/forgot-password/reset?flow=${FLOW}&return_to=%2Fx`,
    );
  });

  it('follows continue_with show_settings_ui', () => {
    expect(target(undefined, {}, [{ action: 'redirect_browser_to' }, { action: 'show_settings_ui', flow: { id: FLOW } }])).toBe(
      `/forgot-password/reset?flow=${FLOW}`,
    );
  });

  it('honours other targets only when allow-listed', () => {
    expect(target('https://docs.example.com/app/doc')).toBe('https://docs.example.com/app/doc');
    expect(target('https://evil.example/profile-settings?flow=' + FLOW)).toBe('/');
    expect(target('https://evil.example/')).toBe('/');
    expect(target('https://evil.example/', { return_to: '/profile-settings' })).toBe('https://accounts.example.com/profile-settings');
  });

  it('ignores a settings address without a real flow id', () => {
    expect(target('https://accounts.example.com/profile-settings?flow=%3Cscript%3E')).toBe('https://accounts.example.com/profile-settings?flow=%3Cscript%3E');
    expect(target(undefined, {}, [{ action: 'show_settings_ui', flow: { id: 'nope' } }])).toBe('/');
  });
});
