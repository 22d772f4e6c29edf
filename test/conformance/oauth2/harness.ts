// Runs a file's OAuth2 scenarios against the stand-in (embedded/oauth2) and real Hydra v2.3.0 and
// compares them, like the identity suite's ../harness.ts: one `it` per scenario, run on both providers
// at the same time, each recording normalised (./normalise.ts) and compared (../compare.ts), any
// difference outside ./allowed-differences.ts failing the test with a readable report. All scenarios
// share one pair of providers; each registers its own clients and uses its own subjects, so what one
// leaves behind does not show in another.
// Without a built Hydra binary the scenarios are skipped, with the reason in the describe's name.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { Client, type Recording } from '../client.ts';
import { compareRecordings, judge, type Difference } from '../compare.ts';
import type { NormalisedExchange } from '../normalise.ts';
import { normaliseText } from '../normalise.ts';
import { realHydraBuilt } from '../../real-ory-projects.ts';
import { oauth2AllowedDifferences } from './allowed-differences.ts';
import { normaliseOAuth2Recording } from './normalise.ts';
import { selfCheck, startOAuth2Pair, type OAuth2Pair, type OAuth2Target } from './targets.ts';

export type OAuth2ScenarioContext = {
  target: OAuth2Target;
  /** `${publicUrl}${path}` */
  pub(path: string): string;
  /** `${adminUrl}${path}` */
  adm(path: string): string;
  /** A new browser: its own cookie jar. */
  browser(): Client;
  /** The admin API caller (the login/consent UI's server side, or an OAuth2 client's back end): no cookies. */
  admin: Client;
};

export type OAuth2Scenario = { name: string; run(context: OAuth2ScenarioContext): Promise<void> };

/** Response headers that are part of the contract: no caching of tokens, the Bearer challenge of /userinfo. */
const RECORDED_HEADERS = ['cache-control', 'pragma', 'www-authenticate'];

type Run = { recording: Recording; failure?: string };

const placeholders = (t: OAuth2Target) => ({ public: t.publicUrl, admin: t.adminUrl, app: t.appUrl });

async function runOn(target: OAuth2Target, scenario: OAuth2Scenario): Promise<Run> {
  const recording: Recording = { exchanges: [] };
  const context: OAuth2ScenarioContext = {
    target,
    pub: (path) => `${target.publicUrl}${path}`,
    adm: (path) => `${target.adminUrl}${path}`,
    browser: () => new Client(recording, true, RECORDED_HEADERS),
    admin: new Client(recording, false, RECORDED_HEADERS),
  };
  try {
    await scenario.run(context);
    return { recording };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { recording, failure: normaliseText(message, placeholders(target)) };
  }
}

/** The comparison of one scenario on a running pair: the differences that fail and those allowed. */
export async function compareOAuth2Scenario(scenario: OAuth2Scenario, pair: OAuth2Pair) {
  const [a, b] = await Promise.all([runOn(pair.standIn, scenario), runOn(pair.hydra, scenario)]);
  const standIn = normaliseOAuth2Recording(a.recording.exchanges, placeholders(pair.standIn));
  const hydra = normaliseOAuth2Recording(b.recording.exchanges, placeholders(pair.hydra));
  // The comparer walks any JSON; its types name the identity suite's shapes, which these values extend.
  const differences = compareRecordings(scenario.name, standIn as unknown as NormalisedExchange[], hydra as unknown as NormalisedExchange[]);
  if (a.failure !== undefined || b.failure !== undefined) {
    differences.push({
      scenario: scenario.name,
      step: Math.max(standIn.length, hydra.length),
      request: '(scenario stopped)',
      path: 'failure',
      standIn: a.failure ?? '(ran to the end)',
      kratos: b.failure ?? '(ran to the end)',
    });
  }
  // CONFORMANCE_DUMP=<dir>: both normalised recordings and the differences of each scenario, to read when one fails.
  const dump = process.env.CONFORMANCE_DUMP;
  if (dump) {
    mkdirSync(dump, { recursive: true });
    const file = join(dump, `oauth2-${scenario.name.replace(/[^\w]+/g, '-').slice(0, 100)}.json`);
    writeFileSync(file, JSON.stringify({ scenario: scenario.name, differences, standIn, hydra, raw: { standIn: a.recording, hydra: b.recording } }, null, 2));
  }
  return { ...judge(differences, oauth2AllowedDifferences), exchanges: Math.max(standIn.length, hydra.length), hydraFailure: b.failure };
}

const show = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));

/** A readable report: one block per difference (the comparer's `kratos` side is real Hydra here). */
export function formatOAuth2Differences(differences: Difference[]): string {
  return differences
    .map((d) => `#${d.step} ${d.request}\n    ${d.path || '(whole exchange)'}\n      stand-in: ${show(d.standIn)}\n      hydra:    ${show(d.kratos)}`)
    .join('\n');
}

const SKIP_REASON = 'skipped: real Hydra is not built (npm run ory:build), and the stand-in is compared with it';

/** Real Hydra makes two RSA signing keys at start (targets.ts); on a loaded two-core machine that alone can take most of a minute. */
const START_TIMEOUT_MS = 150_000;

/**
 * Defines the whole suite: one pair of providers (a real Hydra is slow to start and to make its keys,
 * so one for all), a `describe` per group and an `it` per scenario.
 */
export function oauth2Conformance(groups: Record<string, OAuth2Scenario[]>): void {
  const built = realHydraBuilt();
  const title = `conformance (OAuth2${selfCheck() ? ', self-check: Hydra against Hydra' : ': stand-in against real Hydra v2.3.0'})${built ? '' : ` — ${SKIP_REASON}`}`;
  describe.skipIf(!built)(title, () => {
    let pair: OAuth2Pair | undefined;
    beforeAll(async () => {
      pair = await startOAuth2Pair();
    }, START_TIMEOUT_MS);
    afterAll(async () => {
      await pair?.close();
    });
    for (const [flow, scenarios] of Object.entries(groups)) {
      describe(flow, () => {
        for (const scenario of scenarios) {
          it(scenario.name, async () => {
            const result = await compareOAuth2Scenario(scenario, pair!);
            // A scenario that cannot run to its end on real Hydra is itself wrong, whatever the stand-in does.
            expect(result.hydraFailure, 'the scenario stopped on real Hydra').toBeUndefined();
            expect(result.exchanges, 'the scenario recorded no exchange').toBeGreaterThan(0);
            const report = `${scenario.name}: ${result.failing.length} difference(s) not in oauth2/allowed-differences.ts\n${formatOAuth2Differences(result.failing)}`;
            if (result.failing.length > 0) assert.fail(report);
          });
        }
      });
    }
  });
}
