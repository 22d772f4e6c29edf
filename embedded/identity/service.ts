// The shared state every handler receives.
import type { IdentityConfig } from './config.ts';
import type { Store } from './store.ts';
import type { IdentitySchema } from './schema.ts';
import type { Csrf } from './csrf.ts';
import type { Tokenizer } from './tokenizer.ts';
import type { Courier } from './courier.ts';
import type { Clock } from '../clock.ts';

export interface Service {
  config: IdentityConfig;
  store: Store;
  schema: IdentitySchema;
  csrf: Csrf;
  tokenizer: Tokenizer;
  courier: Courier;
  /** Public base URL without trailing slash. */
  publicUrl: string;
  adminUrl: string;
  cookieSecret: Buffer;
  /** Every time read goes through it, so tests can move time instead of sleeping. */
  clock: Clock;
}

export const nowIso = (svc: Pick<Service, 'clock'>): string => new Date(svc.clock.now()).toISOString();
