// What explains a test that failed on a stack: the app's own warnings and errors, and the error lines of
// real Kratos and Hydra, kept while the stack runs and printed when a test fails (the setup file
// test/support/report-stacks-on-failure.ts). Real-Ory tests failed in loaded CI runs with a bare 503, which
// did not say whether Kratos ran out the app's deadline, refused the connection or answered an error.
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** Lines kept per source: the end of a failing test, not the whole run. */
const KEPT_LINES = 40;

export type LogSource = { name: string; lines(): string[] };

/** A logger for the app at `warn`, whose lines are kept (the last KEPT_LINES) instead of written anywhere. */
export function keptAppLog(): { logger: Logger; source: LogSource } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(line);
      lines.splice(0, Math.max(0, lines.length - KEPT_LINES));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, sink), source: { name: 'app', lines: () => [...lines] } };
}

const running = new Set<readonly LogSource[]>();

/** Keeps a stack's sources for the failure report until the returned function is called (on close). */
export function reportOnFailure(sources: readonly LogSource[]): () => void {
  running.add(sources);
  return () => running.delete(sources);
}

/** The kept lines of every stack running in this worker, or '' when none has any. */
export function runningStacksReport(): string {
  const parts: string[] = [];
  for (const sources of running) {
    for (const source of sources) {
      const lines = source.lines().slice(-KEPT_LINES);
      if (lines.length) parts.push(`--- ${source.name} (last ${lines.length} lines)\n${lines.join('\n')}`);
    }
  }
  return parts.join('\n');
}
