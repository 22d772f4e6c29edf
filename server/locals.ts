import type { Logger } from 'pino';
import type { i18n as I18n } from 'i18next';
import type { Config } from './config.ts';
import type { DocumentAssets } from '../views/layout/Document.tsx';

/** What createApp() puts on app.locals for routes and helpers. */
export type AppLocals = {
  config: Config;
  logger: Logger;
  i18n: I18n;
  assets: DocumentAssets;
  /** Flips to true on SIGTERM: readiness answers 503 from then on. */
  shuttingDown: boolean;
};
