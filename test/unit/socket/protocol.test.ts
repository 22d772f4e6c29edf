import { describe, expect, it } from 'vitest';
import { backoffDelay, decodeFrame, encodeEvent } from '../../../client/islands/socket.ts';
import { CONNECT_TIMEOUT_MS, RECONNECT_DELAY_MAX_MS, RECONNECT_DELAY_MS, RECONNECT_RANDOMIZATION } from '../../../core/live-session.ts';

// The island's Socket.IO protocol (Engine.IO 4 + Socket.IO 5 text frames) and its reconnection backoff.

describe('frames', () => {
  it('encodes an event as Engine.IO message + Socket.IO EVENT on the main namespace', () => {
    expect(encodeEvent('init', { authorization: 'a.b.c' })).toBe('42["init",{"authorization":"a.b.c"}]');
    expect(encodeEvent('join')).toBe('42["join"]');
    expect(encodeEvent('hello', 0)).toBe('42["hello",0]');
  });

  it('decodes what a socket.io 4 server sends', () => {
    expect(decodeFrame('0{"sid":"x","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}')).toEqual([
      '0',
      '',
      { sid: 'x', upgrades: [], pingInterval: 25000, pingTimeout: 20000, maxPayload: 1000000 },
    ]);
    expect(decodeFrame('2')).toEqual(['2']);
    expect(decodeFrame('1')).toEqual(['1']);
    expect(decodeFrame('40{"sid":"abc"}')).toEqual(['40']);
    expect(decodeFrame('41')).toEqual(['41']);
    expect(decodeFrame('42["authenticated"]')).toEqual(['42', 'authenticated']);
    expect(decodeFrame('42["force-reload",{"why":"x"}]')).toEqual(['42', 'force-reload', { why: 'x' }]);
    // With an ack id between the type and the payload.
    expect(decodeFrame('4217["force-reload"]')).toEqual(['42', 'force-reload']);
  });

  it('round-trips any JSON payload', () => {
    for (const data of [null, 1, 'text "quoted"', { nested: [1, { a: 'é' }] }, [true, false]]) {
      const [, event, decoded] = decodeFrame(encodeEvent('e', data));
      expect(event).toBe('e');
      expect(decoded).toEqual(data);
    }
  });
});

describe('backoff (spec §9: 1000 → 5000 ms, randomization 0.5, 20 s connect timeout)', () => {
  it('uses the spec numbers', () => {
    expect([RECONNECT_DELAY_MS, RECONNECT_DELAY_MAX_MS, RECONNECT_RANDOMIZATION, CONNECT_TIMEOUT_MS]).toEqual([1000, 5000, 0.5, 20000]);
  });

  it('doubles from 1000 ms, ±50 %, and never exceeds 5000 ms', () => {
    // backo2: one draw decides both the size (r·0.5·ms) and the sign (floor(r·10) odd → plus).
    expect(backoffDelay(0, 0)).toBe(1000);
    expect(backoffDelay(0, 0.19)).toBe(1095); // floor(1.9) = 1, odd: +95
    expect(backoffDelay(0, 0.99)).toBe(1495); // 9: odd, +495
    expect(backoffDelay(0, 0.8)).toBe(600); // 8: even, −400
    expect(backoffDelay(1, 0.5)).toBe(2500); // 5: odd, +500 on 2000
    expect(backoffDelay(2, 0.99)).toBe(5000);
    for (let attempt = 0; attempt < 60; attempt += 1) {
      for (const random of [0, 0.13, 0.5, 0.77, 0.999]) {
        const delay = backoffDelay(attempt, random);
        const base = RECONNECT_DELAY_MS * 2 ** Math.min(attempt, 8);
        expect(delay).toBeGreaterThanOrEqual(Math.min(base * 0.5, RECONNECT_DELAY_MAX_MS));
        expect(delay).toBeLessThanOrEqual(RECONNECT_DELAY_MAX_MS);
        expect(Number.isFinite(delay)).toBe(true);
      }
    }
  });

  it('keeps retrying for ever (no attempt limit): any attempt count gives a delay', () => {
    expect(backoffDelay(1_000_000, 0.3)).toBe(5000);
  });
});
