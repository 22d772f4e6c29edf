// The parts of the profile about the account's ways in: the password section's kind and the linked
// login services, with the notice of the last link or unlink, as the page shows them and as JSON.
import type { Request } from 'express';
import { AppError } from '../../../core/errors.ts';
import type { KratosFlow } from '../../../core/kratos/types.ts';
import { flowCsrfToken } from '../../flows/kratos.ts';
import { translator } from '../../request-context.ts';
import type { LinkedLoginsView } from '../../../views/components/profile/LinkedLoginsSection.tsx';
import { linkedLoginsOf, providerName } from '../../../views/components/profile/linked-logins.ts';
import type { ProfileSettingsView } from '../../../views/pages/ProfileSettingsPage.tsx';
import { passwordKindOf, type AccountFacts } from './account-facts.ts';
import type { ProfileFlash } from './flash.ts';
import { linkFailureCode, linkFailureKey, linkFailureOf } from './link-failures.ts';
import type { LinkReturn } from './linking.ts';

const EMAIL_PASSWORD = 'EMAIL_PASSWORD';

/** The `traits.loginService` the app stores at sign-up (GOOGLE, MICROSOFT…), as a provider id. */
function providerOfService(service: string | undefined): string | undefined {
  return service && service !== EMAIL_PASSWORD ? service.toLowerCase() : undefined;
}

/** The toast of a saved settings form: password changed or set, a service unlinked, else Kratos's "saved". */
export function savedToast(
  req: Request,
  post: Record<string, unknown>,
  passwordSaved: 'changed' | 'set' | undefined,
  email: string,
): NonNullable<ProfileFlash['toasts']>[number] {
  if (passwordSaved === 'changed') return { key: 'profile.password.changed', variant: 'success' };
  if (passwordSaved === 'set') return { key: 'profile.password.set', variant: 'success', params: { email } };
  if (typeof post.unlink === 'string' && post.unlink !== '') {
    return { key: 'profile.linkedLogins.unlinked', variant: 'success', params: { provider: providerName(translator(req), post.unlink) } };
  }
  return { key: 'kratos.1050001', variant: 'success' };
}

export type WaysIn = {
  password: ProfileSettingsView['password'];
  linkedLogins: LinkedLoginsView;
  /** Members of the JSON state. */
  json: Record<string, unknown>;
  /** A failed link or unlink, for JSON answers. */
  error?: AppError;
};

/**
 * `linkReturn` is how the last link or unlink went, when this answer reports one. Without it, a
 * settings flow Kratos answered with an error for the login-services form (`oidcFailed`) still names
 * the failure, from its first error message.
 */
export function waysInOf(
  req: Request,
  flow: KratosFlow,
  options: { facts: AccountFacts | null; flash: ProfileFlash; loginService: string | undefined; action: string; linkReturn?: LinkReturn; oidcFailed?: boolean },
): WaysIn {
  const t = translator(req);
  const { facts, flash } = options;
  const logins = linkedLoginsOf(flow.ui, facts?.linkedProviders);
  const kind = passwordKindOf(facts, options.loginService);
  const nameOf = (provider: string | undefined) =>
    provider ? providerName(t, provider, logins.find((login) => login.provider === provider)?.label) : t('errorMessage.unknownThirdParty');
  // The service the account signs in with instead of a password: a linked one, else the one it signed up with.
  const serviceProvider = facts?.linkedProviders[0] ?? providerOfService(options.loginService);

  let linkReturn = options.linkReturn;
  if (!linkReturn && options.oidcFailed) {
    const error = (flow.ui.messages ?? []).find((message) => message.type === 'error');
    if (error) linkReturn = { provider: '', linked: false, failure: linkFailureOf(error) };
  }
  const failure = linkReturn && !linkReturn.linked ? linkReturn.failure : undefined;
  const failureText = failure ? t(linkFailureKey(failure), { provider: nameOf(linkReturn!.provider || undefined) }) : undefined;

  const signedUpWith = providerOfService(options.loginService);
  return {
    password: {
      kind,
      loginService: kind === 'changeLoginService' ? nameOf(serviceProvider) : undefined,
      changedAt: kind === 'changedPassword' ? facts?.passwordChangedAt : undefined,
      justSaved: flash.passwordSaved,
    },
    linkedLogins: {
      action: options.action,
      csrfToken: flowCsrfToken(flow) ?? '',
      logins,
      hasPassword: facts?.hasPassword,
      signedUpWith: signedUpWith ? nameOf(signedUpWith) : undefined,
      notice: failureText ? { variant: 'error', text: failureText } : undefined,
    },
    json: {
      passwordKind: kind,
      passwordChangedAt: facts?.passwordChangedAt ?? null,
      hasPassword: facts?.hasPassword ?? null,
      linkedLogins: logins.map(({ provider, linked, action }) => ({ provider, linked, action })),
    },
    error: failure ? new AppError(400, linkFailureCode(failure), failureText!, { provider: linkReturn!.provider || null }) : undefined,
  };
}
