// The stand-ins as `npm start` and `npm run start:cluster` run them, started under one supervisor: the
// four sign-in providers (in this process), the OAuth2 provider, the identity service (accepting the
// OAuth2 provider's login challenges), the backend, the demo document app and the captcha. Resolves
// once the gateway's OAuth2 clients are registered, with the app's variables for them.
import type { FakeProviders } from '../embedded/providers/index.ts';
import { backendEnv, captchaEnv, documentAppEnv, LOCAL_PRODUCT, oauth2AppEnv, startLocalProviders } from './local-product.ts';
import type { Supervisor } from './supervisor.ts';

const port = (url: string) => new URL(url).port || '80';

export async function startStandIns(supervisor: Supervisor): Promise<{ fakes: FakeProviders; appEnv: Record<string, string> }> {
  const { appUrl, identityPublic, identityAdmin, hydraPublic, hydraAdmin } = LOCAL_PRODUCT;
  // The embedded Google, Microsoft, Dropbox and Apple run in this process (their Apple key and client
  // registrations are made at start, and the identity service is told them through its environment).
  const { fakes, identityOverrides } = await startLocalProviders(identityPublic);
  supervisor.onStop(() => fakes.close());
  // The OAuth2 provider (a stand-in for Ory Hydra): the identity service accepts its login challenges,
  // and an accepted logout there ends the identity session too.
  supervisor.start('oauth2', ['embedded/oauth2/main.ts'], {
    OAUTH2_PUBLIC_PORT: port(hydraPublic),
    OAUTH2_ADMIN_PORT: port(hydraAdmin),
    OAUTH2_PUBLIC_HOST: new URL(hydraPublic).hostname,
    APP_URL: appUrl,
    IDENTITY_ADMIN_URL: identityAdmin,
  });
  const identityConfig = { ...(JSON.parse(identityOverrides) as object), oauth2_provider: { url: hydraAdmin } };
  supervisor.start('identity', ['embedded/identity/main.ts'], { APP_URL: appUrl, IDENTITY_CONFIG_OVERRIDES: JSON.stringify(identityConfig) });
  // Locally the identity admin API listens on loopback only and, as Kratos's does, has no key.
  supervisor.start(
    'backend',
    ['embedded/backend/main.ts'],
    backendEnv({ publicUrl: identityPublic, adminUrl: identityAdmin, mailUrl: `${identityAdmin}/mailbox` }),
  );
  // The gateway's desktop and mobile clients are registered before the app starts: it is told their ids.
  const oauth2 = await oauth2AppEnv();
  supervisor.start('document-app', ['embedded/document-app/main.ts'], documentAppEnv());
  supervisor.start('captcha', ['embedded/captcha/main.ts'], captchaEnv());
  return { fakes, appEnv: oauth2.env };
}
