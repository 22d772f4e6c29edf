import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { i18n as I18n } from 'i18next';
import type { Config } from './config.ts';
import type { DocumentAssets } from '../views/layout/Document.tsx';
import type { LiveSessions } from './socket/live-sessions.ts';

/** A dependency readiness waits for: `check` resolves true when it can serve. */
export type ReadinessCheck = { name: string; check(): boolean | Promise<boolean> };

/** What createApp() puts on app.locals for routes and helpers. */
export type AppLocals = {
  config: Config;
  logger: Logger;
  i18n: I18n;
  assets: DocumentAssets;
  /** The islands built as entries of their own (`avatar` → its hashed URL): see views/components/IslandScript.tsx. */
  islandScripts: Readonly<Record<string, string>>;
  /** The same for a page that loads an island bundle (`res.locals.islandBundle`, e.g. the profile's): server/assets.ts. */
  bundledIslandScripts: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Flips to true on SIGTERM: readiness answers 503 from then on. */
  shuttingDown: boolean;
  /** Probed by /readyz; features add theirs (e.g. an upstream ping) with `readiness.push(...)`. */
  readiness: ReadinessCheck[];
  /** Starts (or loads) our server-side session for a request that needs one: see server/session.ts. */
  startSession: RequestHandler;
  /** The live-session channel: `force-reload` to a user's sockets on every instance (server/socket/). */
  liveSessions: LiveSessions;
  /** Run by main.ts after the last in-flight request, to release connections and timers. */
  onShutdown: Array<() => Promise<void>>;
};
