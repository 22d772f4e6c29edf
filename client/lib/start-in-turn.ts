// Islands start through this, not inline: client/main.ts's, and each island entry's. A bundle of several
// entries (the profile page's, decision 220) evaluated them all in one task, which on a slow phone held the
// main thread in one long task. Here the first start runs at once and each later one in a task of its own,
// so input and paint get their turn in between (decision 247). An entry loaded alone starts at once.
// The start running, or the last one run until its task is over, stays first in the queue: a start that
// comes meanwhile waits its turn. The next turn is booked before a start runs, so one that throws does not
// hold up the others.
const queue: Array<() => void> = [];

function runFirst(): void {
  const start = queue[0];
  if (!start) return;
  // A zero timeout, not scheduler.yield(): the same effect here, in every browser, for fewer bytes.
  setTimeout(() => {
    queue.shift();
    runFirst();
  });
  start();
}

export function startInTurn(start: () => void): void {
  if (queue.push(start) === 1) runFirst();
}
