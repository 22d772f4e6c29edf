// The identity service's `selfservice.methods.oidc` block for the embedded providers, in Kratos's own
// keys. The stand-in honours `issuer_url` for every type (a stand-in-only override: real Kratos's google,
// microsoft and apple types have their hosts built in, so scripts/ory/kratos-oidc.ts makes every one
// `generic` for real Kratos). No `mapper_url`: the stand-in maps claims itself.
import type { OidcProvider } from '../identity/config.ts';
import type { FakeProvider, ProviderId } from './index.ts';

/** The identity configuration's provider entry (embedded/identity/config.ts), with what every fake fills in. */
export type IdentityOidcProvider = OidcProvider &
  Required<Pick<OidcProvider, 'provider' | 'label' | 'client_id' | 'issuer_url' | 'scope'>> & { id: ProviderId };

export interface IdentityOidcMethod {
  enabled: true;
  config: { providers: IdentityOidcProvider[] };
}

type Fakes = Record<ProviderId, FakeProvider>;

export function identityProviderConfig(fakes: Fakes): IdentityOidcMethod {
  const { google, microsoft, dropbox, apple } = fakes;
  const common = (fake: FakeProvider) => ({ id: fake.id, label: fake.label, client_id: fake.clientId, issuer_url: fake.issuer });
  if (!microsoft.microsoft || !apple.apple) throw new Error('identityProviderConfig: the Microsoft and Apple fakes carry their tenant and key');
  return {
    enabled: true,
    config: {
      providers: [
        // Kratos adds `openid` to Google's scopes itself.
        { ...common(google), provider: 'google', client_secret: google.clientSecret, scope: ['email', 'profile'] },
        {
          ...common(microsoft),
          provider: 'microsoft',
          client_secret: microsoft.clientSecret,
          microsoft_tenant: microsoft.microsoft.tenant,
          scope: ['openid', 'profile', 'email'],
        },
        // Kratos has no Dropbox type: a generic provider that discovers its endpoints at issuer_url.
        { ...common(dropbox), provider: 'generic', client_secret: dropbox.clientSecret, scope: ['openid', 'email', 'profile'] },
        // Apple's client secret is a JWT the apple type signs with this key, so there is no client_secret.
        {
          ...common(apple),
          provider: 'apple',
          apple_team_id: apple.apple.teamId,
          apple_private_key_id: apple.apple.keyId,
          apple_private_key: apple.apple.privateKeyPem,
          scope: ['email', 'name'],
        },
      ],
    },
  };
}
