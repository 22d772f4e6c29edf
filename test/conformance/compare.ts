// The conformance suite's comparer: two normalised recordings of one scenario (stand-in and real
// Kratos) → every difference, with the exchange it is in and the path inside it. Generic: it knows
// nothing about flows except that UI nodes are aligned by `<group>/<name>` (so one missing node reads
// as one difference, not as every later node shifted) and their order is compared as a list.
// Differences named in allowed-differences.ts are set aside with their reason; any other fails.
import type { NormalisedExchange } from './normalise.ts';

export type Difference = {
  scenario: string;
  /** Index of the exchange in the scenario (0-based). */
  step: number;
  /** The normalised request line of that exchange (the stand-in's, or real Kratos's when the stand-in has none). */
  request: string;
  /** Path inside the normalised exchange: `status`, `location`, `cookies.ory_kratos_session`, `body.error.id`, `ui.nodes[default/csrf_token].group`, … */
  path: string;
  standIn: unknown;
  kratos: unknown;
};

export type AllowedDifference = {
  /** The scenario's name (exact), a pattern, or '*' for every scenario. */
  scenario: string | RegExp;
  /** The difference's path: exact, or a prefix ending at a `.`/`[` boundary; or a pattern. */
  path: string | RegExp;
  /** Optional: only in exchanges whose request line matches. */
  request?: RegExp;
  /** Why this difference is acceptable. Required, in words. */
  reason: string;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isNodeList = (value: unknown): value is { node: string }[] => Array.isArray(value) && value.every((n) => isRecord(n) && typeof n.node === 'string');

/** `default/csrf_token`, or `password/method#2` for the second node of the same key. */
function nodeKeys(nodes: { node: string }[]): string[] {
  const seen = new Map<string, number>();
  return nodes.map((n) => {
    const count = (seen.get(n.node) ?? 0) + 1;
    seen.set(n.node, count);
    return count === 1 ? n.node : `${n.node}#${count}`;
  });
}

type Found = { path: string; standIn: unknown; kratos: unknown };

function diff(a: unknown, b: unknown, path: string, out: Found[]): void {
  if (isNodeList(a) && isNodeList(b)) {
    const keysA = nodeKeys(a);
    const keysB = nodeKeys(b);
    const common = keysA.filter((k) => keysB.includes(k));
    const orderB = keysB.filter((k) => keysA.includes(k));
    if (common.join('\n') !== orderB.join('\n')) out.push({ path: `${path}(order)`, standIn: keysA, kratos: keysB });
    for (const key of new Set([...keysA, ...keysB])) {
      const i = keysA.indexOf(key);
      const j = keysB.indexOf(key);
      diff(i < 0 ? undefined : a[i], j < 0 ? undefined : b[j], `${path}[${key}]`, out);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length && a.every((x) => !isRecord(x)) && b.every((x) => !isRecord(x))) {
      out.push({ path, standIn: a, kratos: b });
      return;
    }
    for (let i = 0; i < Math.max(a.length, b.length); i++) diff(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  if (isRecord(a) && isRecord(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) diff(a[key], b[key], path ? `${path}.${key}` : key, out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path, standIn: a, kratos: b });
}

/** Every difference between the two recordings of `scenario`. */
export function compareRecordings(scenario: string, standIn: NormalisedExchange[], kratos: NormalisedExchange[]): Difference[] {
  const out: Difference[] = [];
  for (let step = 0; step < Math.max(standIn.length, kratos.length); step++) {
    const a = standIn[step];
    const b = kratos[step];
    const request = a?.request ?? b?.request ?? '?';
    if (!a || !b) {
      out.push({ scenario, step, request, path: 'exchange', standIn: a?.request ?? '(none)', kratos: b?.request ?? '(none)' });
      continue;
    }
    const found: Found[] = [];
    diff(a, b, '', found);
    for (const f of found) out.push({ scenario, step, request, ...f });
  }
  return out;
}

function pathMatches(pattern: string | RegExp, path: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(path);
  return path === pattern || path.startsWith(`${pattern}.`) || path.startsWith(`${pattern}[`) || path.startsWith(`${pattern}(`);
}

function scenarioMatches(pattern: string | RegExp, scenario: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(scenario);
  return pattern === '*' || pattern === scenario;
}

/** The allow-list entry that covers `difference`, if any. */
export function allowanceFor(difference: Difference, allowed: readonly AllowedDifference[]): AllowedDifference | undefined {
  return allowed.find(
    (entry) =>
      scenarioMatches(entry.scenario, difference.scenario) &&
      pathMatches(entry.path, difference.path) &&
      (!entry.request || entry.request.test(difference.request)),
  );
}

/** Splits differences into those that fail and those the allow-list covers. */
export function judge(differences: Difference[], allowed: readonly AllowedDifference[]): { failing: Difference[]; allowed: Difference[] } {
  const failing: Difference[] = [];
  const ok: Difference[] = [];
  for (const d of differences) (allowanceFor(d, allowed) ? ok : failing).push(d);
  return { failing, allowed: ok };
}

const show = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));

/** A readable report: one block per difference. */
export function formatDifferences(differences: Difference[]): string {
  return differences
    .map((d) => `#${d.step} ${d.request}\n    ${d.path || '(whole exchange)'}\n      stand-in: ${show(d.standIn)}\n      kratos:   ${show(d.kratos)}`)
    .join('\n');
}
