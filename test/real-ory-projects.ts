// The suites that run a second time against real Ory Kratos (ORY_TARGET=kratos), and those that
// cannot, each with its reason: one list, read by vitest.config.ts and by the test summary.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { binaryPath } from '../scripts/ory/pins.ts';
import { BROWSER_TESTS, SERVER_TESTS } from './project-settings.ts';

export const realKratosBuilt = (): boolean => existsSync(binaryPath('kratos'));
export const realHydraBuilt = (): boolean => existsSync(binaryPath('hydra'));

/**
 * The integration and browser files the real-Kratos projects leave out, each with why: they run no
 * identity service of the stack (their app talks to none, to a scripted one, or to a stand-in they start
 * themselves). They still run in the stand-in projects (integration, e2e). Single tests that cannot run on real Kratos are skipped in place
 * with their reason (standInOnly in test/support/stack.ts).
 */
export const NOT_ON_REAL_KRATOS: readonly { file: string; reason: string }[] = [
  { file: 'test/integration/api/openapi.test.ts', reason: 'the OpenAPI generator on an endpoint of its own: no identity service' },
  { file: 'test/integration/errors/app-errors.test.ts', reason: '404, crash and body errors of an app with no identity service' },
  { file: 'test/integration/i18n/language.test.ts', reason: 'language detection: no identity service' },
  {
    file: 'test/integration/operations/aborted-requests.test.ts',
    reason: 'malformed and aborted requests to an app whose identity service is unreachable on purpose',
  },
  { file: 'test/integration/operations/ci-run.test.ts', reason: 'the .ci/run script against a stand-in npm: no identity service' },
  { file: 'test/integration/operations/connection-limits.test.ts', reason: 'connection limits of an app whose identity service is unreachable on purpose' },
  { file: 'test/integration/operations/identity-outage.test.ts', reason: 'an outage scripted with a fake Kratos that stops and hangs on cue' },
  { file: 'test/integration/operations/image.test.ts', reason: 'the container image, with a minimal Kratos answering /health/ready' },
  { file: 'test/integration/operations/logging.test.ts', reason: 'request logs of an app with no identity service' },
  { file: 'test/integration/operations/process.test.ts', reason: 'signals, exit codes and start-up of the server process, with a minimal Kratos' },
  { file: 'test/integration/operations/session-store.test.ts', reason: 'the session store, with a minimal Kratos answering /health/ready' },
  { file: 'test/integration/operations/sigterm-drain.test.ts', reason: 'the SIGTERM drain of an app whose identity service is unreachable on purpose' },
  { file: 'test/integration/operations/test-summary.test.ts', reason: 'the npm test summary script: no identity service' },
  {
    file: 'test/integration/security/anonymous-sessions.test.ts',
    reason: 'starts its own identity stand-in (sessions for guests are the app’s, not the identity service’s)',
  },
  { file: 'test/integration/security/csrf.test.ts', reason: 'the CSRF token of our own forms, with no identity service' },
  { file: 'test/integration/security/double-slash-paths.test.ts', reason: '`//` paths of an app whose identity service is unreachable on purpose' },
  { file: 'test/integration/security/headers.test.ts', reason: 'security headers and request ids of an app with no identity service' },
  { file: 'test/integration/security/production-cookies.test.ts', reason: 'cookie attributes relayed from a scripted Kratos answer' },
  { file: 'test/e2e/kit.test.ts', reason: 'the UI kit page of an app with no identity service' },
  { file: 'test/e2e/api.test.ts', reason: 'the API reference pages (Swagger UI, OpenAPI document): no identity flow' },
  {
    file: 'test/e2e/npm-start.test.ts',
    reason: '`npm start` as it is, with its own stand-ins on its own ports (`npm run start:ory` has its test in the ory suite)',
  },
  {
    file: 'test/integration/social/one-tap-kratos.test.ts',
    reason: 'Google One Tap: real Kratos verifies an id_token only for its google type, against Google’s own keys; the fake Google is a generic provider there',
  },
  {
    file: 'test/e2e/one-tap.test.ts',
    reason: 'Google One Tap: real Kratos verifies an id_token only for its google type, against Google’s own keys; the fake Google is a generic provider there',
  },
];

export function realOryProjects(): object[] {
  if (!realKratosBuilt()) return [];
  const env = { ORY_TARGET: 'kratos' };
  return [
    // Real Kratos and real Hydra together, no stand-in involved (test/ory/).
    ...(realHydraBuilt() ? [{ extends: true, test: { name: 'ory', include: ['test/ory/**/*.test.ts'], ...SERVER_TESTS } }] : []),
    {
      extends: true,
      test: {
        name: 'integration-ory',
        include: ['test/integration/**/*.test.{ts,tsx}'],
        exclude: NOT_ON_REAL_KRATOS.map((entry) => entry.file),
        env,
        ...SERVER_TESTS,
      },
    },
    {
      // The browser journeys on real Kratos, JavaScript on and off; like the e2e project, one browser at a time.
      extends: true,
      test: {
        name: 'e2e-ory',
        include: ['test/e2e/**/*.test.{ts,tsx}'],
        exclude: NOT_ON_REAL_KRATOS.map((entry) => entry.file),
        env,
        ...BROWSER_TESTS,
      },
    },
    {
      // The stand-in and real Kratos side by side, one set of scenarios, every difference named
      // (test/conformance/harness.ts; accepted differences in test/conformance/allowed-differences.ts);
      // the OAuth2 stand-in and real Hydra likewise (test/conformance/oauth2/, skipped without Hydra).
      extends: true,
      test: {
        name: 'conformance',
        include: ['test/conformance/**/*.test.ts'],
        ...SERVER_TESTS,
      },
    },
  ];
}

/**
 * The real-Ory suites this run cannot start, each with why (for the closing summary): none when both
 * binaries are built.
 */
export function realOrySkips(): string[] {
  const why =
    spawnSync('go', ['version']).status === 0
      ? 'not built yet: run `npm run ory:build`'
      : 'the Go toolchain is missing, so `npm run ory:build` cannot build it';
  const skips: string[] = [];
  if (!realKratosBuilt()) skips.push(`real-Ory suites integration-ory, e2e-ory and conformance: real Kratos is ${why}`);
  if (!realHydraBuilt())
    skips.push(`real-Ory suite ory (Kratos with Hydra) and the OAuth2 conformance scenarios (test/conformance/oauth2): real Hydra is ${why}`);
  return skips;
}
