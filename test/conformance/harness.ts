// Runs a file's scenarios against both services and compares: one `it` per scenario (so a failure is
// named), the scenario run on the stand-in and on real Kratos at the same time, each recording
// normalised and compared, and any difference outside allowed-differences.ts failing the test with a
// readable report. Scenarios without their own configuration share one pair of services per file;
// a scenario with `config` gets its own pair, closed when it ends.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { allowedDifferences } from './allowed-differences.ts';
import { Client, explainFailure, type Recording, type Target } from './client.ts';
import { compareRecordings, formatDifferences, judge } from './compare.ts';
import { normaliseRecording, normaliseText } from './normalise.ts';
import { startPair, type Pair, type RunningTarget, type ScenarioConfig } from './targets.ts';
import { merge } from '../../embedded/identity/config.ts';
import { SERVER_TEST_WITH_OWN_SERVICES_TIMEOUT } from '../project-settings.ts';

export type ScenarioContext = {
  target: Target;
  /** `${publicUrl}${path}` */
  pub(path: string): string;
  /** `${adminUrl}${path}` */
  adm(path: string): string;
  /** A new browser (or the app's SDK calls for one browser): its own cookie jar. */
  browser(): Client;
  /** The admin API caller: no cookies. */
  admin: Client;
};

export type Scenario = {
  name: string;
  /** Stand-in configuration keys for this scenario only (real Kratos gets them translated). */
  config?: ScenarioConfig;
  run(context: ScenarioContext): Promise<void>;
};

type Run = { recording: Recording; failure?: string };

async function runOn(target: RunningTarget, scenario: Scenario): Promise<Run> {
  const recording: Recording = { exchanges: [] };
  const loggedBefore = target.errors().length;
  const context: ScenarioContext = {
    target,
    pub: (path) => `${target.publicUrl}${path}`,
    adm: (path) => `${target.adminUrl}${path}`,
    browser: () => new Client(recording),
    admin: new Client(recording, false),
  };
  try {
    await scenario.run(context);
    return { recording };
  } catch (error) {
    const message = explainFailure(error instanceof Error ? error.message : String(error), recording, target.errors().slice(loggedBefore));
    return { recording, failure: normaliseText(message, { public: target.publicUrl, admin: target.adminUrl, app: target.appUrl }) };
  }
}

const placeholders = (t: Target) => ({ public: t.publicUrl, admin: t.adminUrl, app: t.appUrl });

/** The comparison of one scenario on a running pair: differences that fail, and the run's failures. */
export async function compareScenario(scenario: Scenario, pair: Pair) {
  const [a, b] = await Promise.all([runOn(pair.standIn, scenario), runOn(pair.kratos, scenario)]);
  const standIn = normaliseRecording(a.recording.exchanges, placeholders(pair.standIn));
  const kratos = normaliseRecording(b.recording.exchanges, placeholders(pair.kratos));
  const differences = compareRecordings(scenario.name, standIn, kratos);
  if (a.failure !== undefined || b.failure !== undefined) {
    differences.push({
      scenario: scenario.name,
      step: Math.max(standIn.length, kratos.length),
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
    const file = join(dump, `${scenario.name.replace(/[^\w]+/g, '-').slice(0, 100)}.json`);
    writeFileSync(file, JSON.stringify({ scenario: scenario.name, differences, standIn, kratos, raw: { standIn: a.recording, kratos: b.recording } }, null, 2));
  }
  return { ...judge(differences, allowedDifferences), exchanges: Math.max(standIn.length, kratos.length) };
}

/**
 * What a file's scenarios share besides the two services (the upstream OIDC providers): started first,
 * its configuration given to both services under each scenario's own, and told of every pair started.
 */
export type Fixture = { config: ScenarioConfig; pairStarted(pair: Pair): void; close(): Promise<void> };

/** Defines one `it` per scenario, in a `describe` named after the file's flow. */
export function conformance(flow: string, scenarios: Scenario[], options: { fixture?: () => Promise<Fixture> } = {}): void {
  describe(`conformance: ${flow}`, () => {
    let shared: Pair | undefined;
    let fixture: Fixture | undefined;
    const needsShared = scenarios.some((s) => !s.config);
    const start = async (config?: ScenarioConfig) => {
      const pair = await startPair(fixture ? merge(fixture.config, config) : config);
      fixture?.pairStarted(pair);
      return pair;
    };
    beforeAll(async () => {
      fixture = await options.fixture?.();
      if (needsShared) shared = await start();
    });
    afterAll(async () => {
      await shared?.close();
      await fixture?.close();
    });
    for (const scenario of scenarios) {
      const timeout = scenario.config ? SERVER_TEST_WITH_OWN_SERVICES_TIMEOUT : undefined;
      it(scenario.name, { timeout }, async () => {
        const pair = scenario.config ? await start(scenario.config) : shared!;
        try {
          const result = await compareScenario(scenario, pair);
          expect(result.exchanges, 'the scenario recorded no exchange').toBeGreaterThan(0);
          const report = `${scenario.name}: ${result.failing.length} difference(s) not in allowed-differences.ts\n${formatDifferences(result.failing)}`;
          if (result.failing.length > 0) assert.fail(report);
        } finally {
          if (scenario.config) await pair.close();
        }
      });
    }
  });
}
