// The OAuth2 conformance harness (test/conformance/oauth2/harness.ts) on two tiny scripted providers:
// equal answers pass, a different value fails with a readable report, a scenario that stops on real
// Hydra is told apart from one that stops on the stand-in only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { compareOAuth2Scenario, formatOAuth2Differences, type OAuth2Scenario } from '../../conformance/oauth2/harness.ts';
import type { OAuth2Pair, RunningTarget } from '../../conformance/oauth2/targets.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A provider whose every answer is `body` as JSON. */
async function scripted(name: RunningTarget['name'], body: unknown): Promise<RunningTarget> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { name, publicUrl: url, adminUrl: url, appUrl: 'http://app.test:3000', close: async () => {} };
}

const pairOf = async (standIn: unknown, hydra: unknown): Promise<OAuth2Pair> => ({
  standIn: await scripted('stand-in', standIn),
  hydra: await scripted('hydra', hydra),
  close: async () => {},
});

const reads: OAuth2Scenario = {
  name: 'reads a token answer',
  async run(ctx) {
    await ctx.admin.getJson(ctx.pub('/token'));
  },
};

describe('compareOAuth2Scenario', () => {
  it('passes equal answers whose random values differ', async () => {
    const pair = await pairOf({ access_token: 'ory_at_one', scope: 'openid' }, { access_token: 'ory_at_two', scope: 'openid' });
    const result = await compareOAuth2Scenario(reads, pair);
    expect(result.failing).toEqual([]);
    expect(result.exchanges).toBe(1);
  });

  it('fails a different value, and the report names the exchange, the path and both values', async () => {
    const pair = await pairOf({ scope: 'openid' }, { scope: 'openid offline_access' });
    const result = await compareOAuth2Scenario(reads, pair);
    expect(result.failing.map((d) => d.path)).toEqual(['body.scope']);
    const report = formatOAuth2Differences(result.failing);
    expect(report).toContain('GET {public}/token [json]');
    expect(report).toContain('stand-in: "openid"');
    expect(report).toContain('hydra:    "openid offline_access"');
  });

  it('tells a scenario that stopped on real Hydra from one that stopped on the stand-in', async () => {
    const pair = await pairOf({ ok: true }, { ok: true });
    const stopsOnHydra: OAuth2Scenario = {
      name: 'stops on Hydra',
      async run(ctx) {
        await ctx.admin.getJson(ctx.pub('/x'));
        if (ctx.target.name === 'hydra') throw new Error('no challenge');
      },
    };
    const result = await compareOAuth2Scenario(stopsOnHydra, pair);
    expect(result.hydraFailure).toBe('no challenge');
    expect(result.failing.map((d) => d.path)).toEqual(['failure']);
  });
});
