import { describe, expect, it } from 'vitest';
import { LiveSession } from '../../../views/components/LiveSession.tsx';
import { loadConfig } from '../../../server/config.ts';
import { liveSocketSources } from '../../../server/socket/token.ts';
import { render } from '../components/render.tsx';

describe('LiveSession markup', () => {
  const islandScripts = { socket: '/assets/socket-X.js' };

  it('on a signed-in page: the closed session-changed dialog, the token endpoint and the island script, nonce’d', () => {
    const html = render(<LiveSession sessionKey="k123" />, { url: '/profile-settings', islandScripts });
    expect(html).toContain('data-island="live-session"');
    expect(html).toContain('data-token-url="/live-session/token"');
    expect(html).toContain('data-session-key="k123"');
    expect(html).toMatch(/<div class="dialog-layer" id="session-changed"[^>]*hidden=""/);
    expect(html).toContain('<script type="module" nonce="test-nonce" src="/assets/socket-X.js">');
    expect(html).not.toContain('data-socket-url');
  });

  it('names an external socket host when SOCKET_URL is set', () => {
    expect(render(<LiveSession sessionKey="k" socketUrl="https://socket.example" />, { islandScripts })).toContain('data-socket-url="https://socket.example"');
  });

  it('is absent on every path containing the authentication gateway segment', () => {
    for (const url of ['/authentication/gateway', '/authentication/gateway/done', '/authentication/gateway/callback?code=x', '/x/authentication/gateway']) {
      expect(render(<LiveSession sessionKey="k" />, { url, islandScripts })).toBe('');
    }
  });
});

describe('live-session configuration', () => {
  it('an external socket host needs REDIS_URL (emits reach it through the Redis adapter)', () => {
    expect(() => loadConfig({ SOCKET_URL: 'https://socket.example' })).toThrow(/SOCKET_URL: an external socket host is reached through Redis/);
    expect(loadConfig({ SOCKET_URL: 'wss://socket.example', REDIS_URL: 'redis://r:6379' }).SOCKET_URL).toBe('wss://socket.example');
  });

  it('an external socket host joins the CSP connect-src as a WebSocket origin; the app itself needs nothing', () => {
    expect(liveSocketSources({ SOCKET_URL: 'https://socket.example/base' })).toEqual(['wss://socket.example']);
    expect(liveSocketSources({ SOCKET_URL: 'http://127.0.0.1:4900' })).toEqual(['ws://127.0.0.1:4900']);
    expect(liveSocketSources({ SOCKET_URL: 'wss://socket.example' })).toEqual(['wss://socket.example']);
    expect(liveSocketSources({})).toEqual([]);
  });

  it('the force-reload secret is at least 32 characters; token checks default to the identity service', () => {
    expect(() => loadConfig({ FORCE_RELOAD_SECRET: 'short' })).toThrow(/FORCE_RELOAD_SECRET/);
    const config = loadConfig({});
    expect(config.TOKEN_AUDIENCE).toBe('accounts-backend');
    expect(config.TOKEN_JWKS_URL).toBeUndefined();
  });
});
