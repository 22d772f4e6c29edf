// `node scripts/profile-summary.mjs <file.cpuprofile> [--by=package|function] [--top=N]`
// Sums a V8 CPU profile's self time by package (node_modules/<name>, node:internal, our own folders)
// or by function, so a `npm run bench -- --profile=<dir>` run can be read without DevTools.
import { readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
const options = Object.fromEntries(rest.map((arg) => arg.replace(/^--/, '').split('=')));
const by = options.by ?? 'package';
const top = Number(options.top ?? 40);
if (!file) {
  console.error('usage: node scripts/profile-summary.mjs <file.cpuprofile> [--by=package|function] [--top=N]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfTicks = new Map();
for (const id of profile.samples) selfTicks.set(id, (selfTicks.get(id) ?? 0) + 1);

function packageOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url
    .replace(/^file:\/\//, '')
    .split('/')
    .slice(-2)
    .join('/');
}

const totals = new Map();
let all = 0;
for (const [id, ticks] of selfTicks) {
  const { callFrame } = nodes.get(id);
  const key =
    by === 'function'
      ? `${callFrame.functionName || '(anonymous)'}  ${packageOf(callFrame.url, callFrame.functionName)}:${callFrame.lineNumber + 1}`
      : packageOf(callFrame.url, callFrame.functionName);
  totals.set(key, (totals.get(key) ?? 0) + ticks);
  all += ticks;
}
for (const [key, ticks] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${((100 * ticks) / all).toFixed(1).padStart(5)}%  ${key}`);
}
