// Real Kratos's configuration, translated from the identity stand-in's (embedded/identity/config.ts):
// one description of the product's identity settings (schema, methods, hooks, lifespans, ui_urls,
// tokenizer templates) read by both, so the conformance suite compares like with like.
//
// What only the stand-in has, and how it maps:
// - `registration.style` (profile_first | unified): Kratos v1.3 spells it `enable_legacy_one_step`.
// - tokenizer `claims` (a fixed claim set): Kratos maps claims with Jsonnet; the mapper below adds the
//   same claims plus the e-mail, as the stand-in does.
// - `haveibeenpwned_enabled` reads a local list in the stand-in; real Kratos would call the HIBP API over
//   the network, which tests have not got, so it is off for real Kratos (an allow-listed difference).
// - the stand-in keeps sent mail itself; real Kratos delivers through its HTTP courier to a catcher.
// - OIDC providers: every one becomes `generic` with our Jsonnet mapper (kratos-oidc.ts says why).
import type { IdentityConfig } from '../../embedded/identity/config.ts';
import { kratosOidcMethod, type OidcMethodConfig } from './kratos-oidc.ts';

export type KratosRuntime = {
  publicUrl: string;
  adminUrl: string;
  publicPort: number;
  adminPort: number;
  dsn: string;
  /** file:// URL of the identity schema (the stand-in's own file by default). */
  schemaUrl: string;
  /** file:// URL of the tokenizer's private JWKS. */
  jwksUrl: string;
  /** Where the courier posts each message (the mail catcher). */
  courierUrl: string;
  /** Cookie and cipher secrets (at least 32 characters each). */
  secret: string;
  logLevel?: string;
  /**
   * How long Kratos makes a sign-in with an unknown identifier last, so it takes as long as a hash
   * check (`hashers.argon2.expected_duration`, default 500 ms). Tests with cheap hashing shorten it.
   */
  unknownIdentifierDelay?: { duration: string; deviation: string };
  /** Hydra's admin URL: Kratos then answers Hydra's login challenges itself (contract §15.1). */
  oauth2ProviderUrl?: string;
};

const base64Url = (text: string) => `base64://${Buffer.from(text).toString('base64')}`;

/** The courier posts the whole message context as JSON; the catcher only needs to answer 2xx. */
const COURIER_BODY = base64Url('function(ctx) ctx');

function claimsMapper(claims: Record<string, unknown> | undefined): string {
  const fixed = JSON.stringify(claims ?? {});
  return base64Url(
    [
      "local claims = std.extVar('claims');",
      "local session = std.extVar('session');",
      `{ claims: claims + ${fixed} + (if std.objectHas(session.identity.traits, 'email') then { email: session.identity.traits.email } else {}) }`,
    ].join('\n'),
  );
}

type Hooks = { hooks?: { hook: string; config?: unknown }[] } | undefined;
const hooks = (after: Hooks) => (after?.hooks?.length ? { hooks: after.hooks } : undefined);
/** The after-hooks of a flow: those for every method, and per method (password, oidc) as written. */
type AfterHooks = Hooks & { password?: Hooks; oidc?: Hooks };
const afterHooks = (after: AfterHooks) => ({ ...hooks(after), password: hooks(after.password), oidc: hooks(after.oidc) });

/** The Kratos v1.3 configuration object for `config` (already resolved by the stand-in's buildConfig). */
export function kratosConfig(config: IdentityConfig, runtime: KratosRuntime): Record<string, unknown> {
  const { methods, flows } = config.selfservice;
  const registrationAfter = flows.registration.after as AfterHooks;
  const loginAfter = (flows.login.after ?? {}) as AfterHooks;
  const oidc = kratosOidcMethod((methods as { oidc?: OidcMethodConfig }).oidc);
  // Kratos v1.3.1's key for the login hints of a refused registration (the account-linking flow's options).
  const loginHints = (flows.registration as { login_hints?: boolean }).login_hints;
  const argon2 = config.hashers.argon2;
  const templates = Object.fromEntries(
    Object.entries(config.session.whoami.tokenizer.templates).map(([name, template]) => [
      name,
      { ttl: template.ttl ?? '1m', jwks_url: runtime.jwksUrl, claims_mapper_url: claimsMapper(template.claims) },
    ]),
  );

  return {
    version: 'v1.3.1',
    dsn: runtime.dsn,
    dev: true,
    log: { level: runtime.logLevel ?? 'error', format: 'json', leak_sensitive_values: false },
    serve: {
      public: { base_url: `${runtime.publicUrl}/`, host: '127.0.0.1', port: runtime.publicPort },
      admin: { base_url: `${runtime.adminUrl}/`, host: '127.0.0.1', port: runtime.adminPort },
    },
    secrets: { cookie: [runtime.secret], cipher: [runtime.secret.slice(0, 32)] },
    // Kratos's default cipher is `noop` (hex): the OIDC state would carry the PKCE verifier in the clear.
    // Production encrypts it, and so does every real Kratos here.
    ciphers: { algorithm: 'xchacha20-poly1305' },
    selfservice: {
      default_browser_return_url: config.selfservice.default_browser_return_url,
      allowed_return_urls: config.selfservice.allowed_return_urls,
      methods: {
        password: {
          enabled: methods.password.enabled,
          config: {
            min_password_length: methods.password.config.min_password_length,
            identifier_similarity_check_enabled: methods.password.config.identifier_similarity_check_enabled,
            haveibeenpwned_enabled: false,
          },
        },
        profile: { enabled: methods.profile.enabled },
        code: { enabled: methods.code.enabled, config: { lifespan: methods.code.config.lifespan } },
        link: { enabled: methods.link.enabled, config: { lifespan: methods.link.config.lifespan } },
        ...(oidc ? { oidc } : {}),
      },
      flows: {
        error: { ui_url: flows.error.ui_url },
        login: { ui_url: flows.login.ui_url, lifespan: flows.login.lifespan, after: afterHooks(loginAfter) },
        registration: {
          enabled: flows.registration.enabled,
          ui_url: flows.registration.ui_url,
          lifespan: flows.registration.lifespan,
          enable_legacy_one_step: flows.registration.style === 'unified',
          ...(loginHints !== undefined ? { login_hints: loginHints } : {}),
          after: afterHooks(registrationAfter),
        },
        settings: { ui_url: flows.settings.ui_url, lifespan: flows.settings.lifespan, privileged_session_max_age: flows.settings.privileged_session_max_age },
        recovery: {
          enabled: flows.recovery.enabled,
          ui_url: flows.recovery.ui_url,
          lifespan: flows.recovery.lifespan,
          use: flows.recovery.use,
          notify_unknown_recipients: flows.recovery.notify_unknown_recipients,
        },
        verification: {
          enabled: flows.verification.enabled,
          ui_url: flows.verification.ui_url,
          lifespan: flows.verification.lifespan,
          use: flows.verification.use,
          notify_unknown_recipients: flows.verification.notify_unknown_recipients,
        },
      },
    },
    session: {
      lifespan: config.session.lifespan,
      cookie: { name: config.session.cookie.name, persistent: config.session.cookie.persistent, same_site: config.cookies.same_site },
      whoami: { tokenizer: { templates } },
    },
    cookies: { same_site: config.cookies.same_site, path: config.cookies.path },
    hashers: {
      algorithm: 'argon2',
      argon2: {
        memory: `${argon2.memory}KB`,
        iterations: argon2.iterations,
        parallelism: argon2.parallelism,
        key_length: argon2.key_length,
        salt_length: argon2.salt_length,
        ...(runtime.unknownIdentifierDelay
          ? { expected_duration: runtime.unknownIdentifierDelay.duration, expected_deviation: runtime.unknownIdentifierDelay.deviation }
          : {}),
      },
    },
    courier: {
      delivery_strategy: 'http',
      http: { request_config: { url: runtime.courierUrl, method: 'POST', body: COURIER_BODY } },
      smtp: { from_address: config.courier.smtp.from_address, from_name: config.courier.smtp.from_name },
    },
    ...(runtime.oauth2ProviderUrl ? { oauth2_provider: { url: runtime.oauth2ProviderUrl } } : {}),
    identity: { default_schema_id: config.identity.default_schema_id, schemas: [{ id: config.identity.default_schema_id, url: runtime.schemaUrl }] },
  };
}
