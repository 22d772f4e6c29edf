/**
 * The app runs on Node 24 or newer (the runtime it is built and tested on). npm installs it as the
 * `node@24` dev dependency and every npm script runs on it, but `npm install` itself may run on an
 * older Node (package.json's `engines` says what npm needs), and anyone may start `dist/server.js` with
 * whatever `node` their PATH has: that gets one clear line and exit 1, not an obscure failure later.
 */
export const MINIMUM_NODE_MAJOR = 24;

/** Why this Node cannot run the app, or undefined when it can. */
export function nodeVersionProblem(version: string): string | undefined {
  const major = Number.parseInt(version.replace(/^v/, '').split('.')[0] ?? '', 10);
  if (Number.isInteger(major) && major >= MINIMUM_NODE_MAJOR) return undefined;
  return `accounts needs Node ${MINIMUM_NODE_MAJOR} or newer; this is Node ${version}. Start it with npm (npm start uses the Node ${MINIMUM_NODE_MAJOR} that npm installed) or in the node:${MINIMUM_NODE_MAJOR} image.`;
}
