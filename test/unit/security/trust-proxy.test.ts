import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config.ts';

const production = { NODE_ENV: 'production', SESSION_SECRET: 'a-production-secret-of-more-than-32-chars' };

afterEach(() => vi.restoreAllMocks());

describe('TRUST_PROXY (issue 10 #6)', () => {
  it.each(['true', '0.0.0.0/0', 'loopback, ::/0'])('refuses %s in production, naming the variable', (value) => {
    expect(() => loadConfig({ ...production, TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, TRUST_PROXY: value })).toThrow(/^Invalid configuration: TRUST_PROXY: .*refused in production/);
  });

  it('warns loudly elsewhere, and still starts', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/TRUST_PROXY=true .*choose the IP/), { code: 'ACCOUNTS_TRUST_PROXY' });
  });

  it.each([
    ['1', 1],
    ['2', 2],
    ['loopback', 'loopback'],
    ['10.0.0.0/8, 192.168.0.0/16', '10.0.0.0/8, 192.168.0.0/16'],
    ['false', false],
  ])('accepts hop counts and subnets in production: %s', (value, expected) => {
    const warn = vi.spyOn(process, 'emitWarning');
    expect(loadConfig({ ...production, TRUST_PROXY: value }).TRUST_PROXY).toBe(expected);
    expect(warn).not.toHaveBeenCalled();
  });
});
