// Node child processes for the benches that start the product themselves (scripts/page-stack.ts,
// scripts/bench-size.mjs): each keeps the tail of its stderr, so a start that fails says why.
import { spawn, type ChildProcess } from 'node:child_process';

export type NodeChild = ChildProcess & { label: string; lastError(): string };

/** Runs `node <args>` with `env` added, and records it in `children` so stopAll can end it. */
export function startNode(children: ChildProcess[], label: string, args: string[], env: Record<string, string>): NodeChild {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  children.push(child);
  return Object.assign(child, { label, lastError: () => stderr.trim() });
}

/** Polls until url answers (2xx when `ok`); throws, with the process's last stderr, when it dies or time runs out. */
export async function waitFor(url: string, child: NodeChild, ok = false, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok || !ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`${url} did not answer\n${child.label}: ${child.lastError()}`);
}

export function stopAll(children: ChildProcess[]): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
