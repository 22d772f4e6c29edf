// The shared state every handler receives.
import type { IdentityConfig } from './config.ts';
import type { Store } from './store.ts';
import type { IdentitySchema } from './schema.ts';
import type { Csrf } from './csrf.ts';
import type { Tokenizer } from './tokenizer.ts';
import type { Courier } from './courier.ts';

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
}

export const nowIso = (): string => new Date().toISOString();
