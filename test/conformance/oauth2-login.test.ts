// Kratos's OAuth2 provider integration (contract §15), the stand-in against real Kratos v1.3.1, each
// wired to its own REAL Hydra v2.3.0 (targets.ts startOAuth2Pair). The scenarios (scenarios/oauth2-login.ts)
// record only what the identity service answers; what happens at Hydra (authorize, consent) is set-up.
// The file's own runner beside harness.ts's: it adds Hydra's two origins as placeholders and hides
// Hydra's encrypted, per-run challenge and verifier values, then compares as the harness does.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { allowedDifferences } from './allowed-differences.ts';
import { Client, explainFailure, type Exchange, type Recording } from './client.ts';
import { compareRecordings, formatDifferences, judge } from './compare.ts';
import type { Fixture, ScenarioContext } from './harness.ts';
import { merge } from '../../embedded/identity/config.ts';
import { oidcFixture } from './scenarios/oidc-steps.ts';
import { hydraAvailable } from '../../scripts/ory/hydra.ts';
import { normaliseRecording, normaliseText, type Placeholders } from './normalise.ts';
import { oauth2LoginScenarios, type OAuth2Context } from './scenarios/oauth2-login.ts';
import { SERVER_TEST_WITH_OWN_SERVICES_TIMEOUT } from '../project-settings.ts';
import { startOAuth2Pair, startPair, type OAuth2Pair, type OAuth2Target, type Pair, type RunningTarget } from './targets.ts';

/** Hydra's challenges and verifiers: encrypted, different on every run (kept in URLs and reasons as {token}). */
const HYDRA_SECRETS = /\b(login_challenge|login_verifier|consent_challenge|consent_verifier)=[^&"\s#]+/g;

function hideSecrets(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(HYDRA_SECRETS, '$1={token}');
  if (Array.isArray(value)) return value.map(hideSecrets);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideSecrets(v)]));
  return value;
}

const placeholders = (t: RunningTarget & Partial<OAuth2Target>): Placeholders => {
  const base = { public: t.publicUrl, admin: t.adminUrl, app: t.appUrl };
  // normaliseUrl/normaliseText use every entry: Hydra's origins become {hydra} and {hydra-admin}.
  return t.oauth2 ? ({ ...base, hydra: t.oauth2.publicUrl, 'hydra-admin': t.oauth2.adminUrl } as Placeholders) : base;
};

async function runOn(target: RunningTarget & Partial<OAuth2Target>, run: (ctx: OAuth2Context) => Promise<void>) {
  const recording: Recording = { exchanges: [] };
  const loggedBefore = target.errors().length;
  const context: ScenarioContext = {
    target,
    pub: (path) => `${target.publicUrl}${path}`,
    adm: (path) => `${target.adminUrl}${path}`,
    browser: () => new Client(recording),
    admin: new Client(recording, false),
  };
  let failure: string | undefined;
  try {
    await run({ ...context, hydra: target.oauth2 ?? { publicUrl: '', adminUrl: '' } });
  } catch (error) {
    const message = explainFailure(error instanceof Error ? error.message : String(error), recording, target.errors().slice(loggedBefore));
    failure = normaliseText(message, placeholders(target));
  }
  const exchanges = recording.exchanges.map((e) => hideSecrets(e) as Exchange);
  return { normalised: normaliseRecording(exchanges, placeholders(target)), raw: exchanges, failure: failure?.replace(HYDRA_SECRETS, '$1={token}') };
}

// The conformance project runs when real Kratos is built; these also need real Hydra.
describe.skipIf(!hydraAvailable())('conformance: oauth2 login (Kratos with oauth2_provider.url, real Hydra)', () => {
  let wired: OAuth2Pair | undefined;
  let unwired: Pair | undefined;
  let social: Fixture | undefined;
  beforeAll(async () => {
    [wired, unwired] = await Promise.all([startOAuth2Pair(), startPair()]);
  });
  afterAll(async () => {
    await Promise.all([wired?.close(), unwired?.close()]);
    await social?.close();
  });

  for (const scenario of oauth2LoginScenarios) {
    const startsItsOwn = scenario.social || scenario.config !== undefined;
    it(scenario.name, { timeout: startsItsOwn ? SERVER_TEST_WITH_OWN_SERVICES_TIMEOUT : undefined }, async () => {
      let own: Pair | OAuth2Pair | undefined;
      if (scenario.social) {
        social ??= await oidcFixture();
        own = await startOAuth2Pair(merge(social.config, scenario.config));
        social.pairStarted(own);
      } else if (scenario.config) own = await (scenario.unwired ? startPair(scenario.config) : startOAuth2Pair(scenario.config));
      const pair: Pair | OAuth2Pair = own ?? (scenario.unwired ? unwired! : wired!);
      try {
        const [a, b] = await Promise.all([runOn(pair.standIn, scenario.run), runOn(pair.kratos, scenario.run)]);
        const differences = compareRecordings(scenario.name, a.normalised, b.normalised);
        if (a.failure !== undefined || b.failure !== undefined) {
          differences.push({
            scenario: scenario.name,
            step: Math.max(a.normalised.length, b.normalised.length),
            request: '(scenario stopped)',
            path: 'failure',
            standIn: a.failure ?? '(ran to the end)',
            kratos: b.failure ?? '(ran to the end)',
          });
        }
        const result = judge(differences, allowedDifferences);
        // CONFORMANCE_DUMP=<dir>: both recordings and the differences, as harness.ts writes them.
        const dump = process.env.CONFORMANCE_DUMP;
        if (dump) {
          mkdirSync(dump, { recursive: true });
          const file = join(dump, `${scenario.name.replace(/[^\w]+/g, '-').slice(0, 100)}.json`);
          writeFileSync(
            file,
            JSON.stringify(
              { scenario: scenario.name, differences, standIn: a.normalised, kratos: b.normalised, raw: { standIn: a.raw, kratos: b.raw } },
              null,
              2,
            ),
          );
        }
        expect(Math.max(a.normalised.length, b.normalised.length), 'the scenario recorded no exchange').toBeGreaterThan(0);
        if (result.failing.length > 0) {
          assert.fail(`${scenario.name}: ${result.failing.length} difference(s) not in allowed-differences.ts\n${formatDifferences(result.failing)}`);
        }
      } finally {
        await own?.close();
      }
    });
  }
});
