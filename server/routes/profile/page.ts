// Gathers what /profile-settings shows (the Kratos settings flow, the backend's user record, one-time
// notices) and answers it the three ways: the page, one section as a fragment, or JSON.
import type { Request, Response } from 'express';
import { createElement, type ReactElement } from 'react';
import { AvatarSection } from '../../../views/components/profile/AvatarSection.tsx';
import { loginProviders } from '../../../views/components/profile/flow-sections.ts';
import { LinkedLoginsSection } from '../../../views/components/profile/LinkedLoginsSection.tsx';
import { NameSection } from '../../../views/components/profile/NameSection.tsx';
import { PasswordSection, type PasswordKind } from '../../../views/components/profile/PasswordSection.tsx';
import type { ToastItem } from '../../../views/components/Toasts.tsx';
import { ProfileSettingsPage, ReactivateAccountPage, type ProfileSettingsView } from '../../../views/pages/ProfileSettingsPage.tsx';
import { BackendError, backendClientFor, callerOf, isSignedOut, type CurrentUser } from '../../backend-client.ts';
import { configOf, translator } from '../../request-context.ts';
import { loadFlow } from '../../flows/kratos.ts';
import { mapIdentityProviderError, translateMessage, type SpecError } from '../../../core/kratos/messages.ts';
import { errorBody, respondError, respondForm, responseMode } from '../../flows/respond.ts';
import { flowState } from '../../flows/flow-replacement.ts';
import { translateValidation } from '../../flows/schemas.ts';
import type { KratosFlow, KratosSession } from '../../../core/kratos/types.ts';
import { SIGN_IN_PATH } from '../../flows/session.ts';
import { takeFlash, type ProfileFlash } from './flash.ts';
import type { SettingsMethod } from './settings-body.ts';

export const PROFILE_PATH = '/profile-settings';
export const REACTIVATE_PATH = `${PROFILE_PATH}/reactivate`;
/** Message Kratos puts on the settings flow it opens after account recovery. */
export const RECOVERED_MESSAGE_ID = 1060001;

export function settingsAction(flowId: string): string {
  return `${PROFILE_PATH}?flow=${encodeURIComponent(flowId)}`;
}

/** Days a deleted account can still be restored (the backend's grace period); ACCOUNT_DELETION_GRACE_DAYS. */
export function graceDays(req: Request): number {
  return configOf(req).ACCOUNT_DELETION_GRACE_DAYS;
}

export function sessionOf(res: Response): KratosSession {
  return res.locals.kratosSession as KratosSession;
}

export type LoadedUser = { user: CurrentUser | null; unavailable: boolean; signedOut: boolean };

/** The backend's record of the signed-in user; an outage leaves the page usable without the avatar. */
export async function loadUser(req: Request, res: Response): Promise<LoadedUser> {
  try {
    return { user: await backendClientFor(req).getCurrentUser(callerOf(req, res)), unavailable: false, signedOut: false };
  } catch (error) {
    if (!(error instanceof BackendError)) throw error;
    if (isSignedOut(error)) return { user: null, unavailable: false, signedOut: true };
    req.log?.warn({ code: error.code, status: error.status }, 'current user could not be loaded');
    return { user: null, unavailable: true, signedOut: false };
  }
}

/** Back to sign-in, and then here again. */
export function signInAgain(req: Request, res: Response, here = req.originalUrl): void {
  const target = new URL(here, configOf(req).PUBLIC_URL).href;
  const to = `${SIGN_IN_PATH}?return_to=${encodeURIComponent(target)}`;
  if (responseMode(req) === 'json') {
    const t = translator(req);
    return void res
      .status(401)
      .set('Cache-Control', 'no-store')
      .json({ code: 'unauthorized', message: t('errorMessage.unauthorized'), meta: { redirect_browser_to: to } });
  }
  res.set('Cache-Control', 'no-store').redirect(303, to);
}

function traitText(traits: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = traits?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const EMAIL_PASSWORD = 'EMAIL_PASSWORD';

export function passwordKindOf(flash: ProfileFlash, loginService: string | undefined): PasswordKind {
  if (flash.passwordChanged) return 'changedPassword';
  if (loginService && loginService !== EMAIL_PASSWORD) return 'changeLoginService';
  return 'default';
}

function loginServiceLabel(req: Request, service: string | undefined): string | undefined {
  if (!service) return undefined;
  const key = service === EMAIL_PASSWORD ? 'errorMessage.email&password' : `profile.logins.service.${service.toLowerCase()}`;
  const text = String(req.t(key));
  return text && text !== key ? text : service.charAt(0) + service.slice(1).toLowerCase();
}

export type ProfileRender = {
  status?: number;
  flow: KratosFlow;
  failedMethod?: SettingsMethod;
  /** Untranslated keys by field name (our own checks). */
  fieldErrors?: Record<string, string[]>;
  /** Translated avatar error, with the section to answer for an enhanced post. */
  avatarError?: string;
  /** For JSON answers of a failure. */
  error?: SpecError;
  /** Which section an enhanced post gets back as its fragment. */
  fragment?: SettingsMethod | 'avatar';
  user?: LoadedUser;
  notices?: ProfileSettingsView['notices'];
};

/** Renders the settings screen for a flow (page, fragment or JSON). */
export async function renderProfile(req: Request, res: Response, options: ProfileRender): Promise<void> {
  const t = translator(req);
  const session = sessionOf(res);
  const loaded = options.user ?? (await loadUser(req, res));
  if (loaded.signedOut) return signInAgain(req, res);
  const user = loaded.user;
  if (user?.state === 'pending_deletion') return renderReactivate(req, res, user);

  const flow = options.flow;
  const traits = flow.identity?.traits ?? session.identity?.traits ?? {};
  const email = traitText(traits, 'email') ?? user?.email ?? '';
  const name = traitText(traits, 'name') ?? '';
  const flash = takeFlash(req);
  const loginServiceTrait = traitText(traits, 'loginService');
  const passwordKind = passwordKindOf(flash, loginServiceTrait);
  const recoveredMessage = flow.ui.messages?.find((message) => message.id === RECOVERED_MESSAGE_ID);
  const toasts: ToastItem[] = (flash.toasts ?? []).map((toast, index) => ({
    id: `profile-${index}`,
    message: t(toast.key, toast.params),
    variant: toast.variant,
  }));
  const notices = [...(options.notices ?? [])];
  if (flash.reauthenticatedFor) notices.push({ variant: 'info', text: t('profile.reauthenticated') });
  const fieldErrors = options.fieldErrors
    ? Object.fromEntries(Object.entries(options.fieldErrors).map(([field, keys]) => [field, keys.map((key) => translateValidation(t, key))]))
    : undefined;
  const action = settingsAction(flow.id);
  const view: ProfileSettingsView = {
    email,
    name,
    avatarUrl: user?.avatarUrl ?? null,
    backendUnavailable: loaded.unavailable,
    avatarError: options.avatarError,
    notices,
    settings: { ui: flow.ui, flowId: flow.id, action, failedMethod: options.failedMethod, fieldErrors },
    passwordKind,
    loginService: loginServiceLabel(req, loginServiceTrait),
    recovered: recoveredMessage ? translateMessage(t, recoveredMessage) : undefined,
    confirmDelete: req.query.confirm === 'delete-account',
    graceDays: graceDays(req),
  };
  res.locals.toasts = toasts;
  const status = options.status ?? 200;
  respondForm(req, res, {
    status,
    title: t('profile.title'),
    page: () => createElement(ProfileSettingsPage, view),
    fragment: () => fragmentOf(view, options.fragment),
    json: () => {
      const body = {
        flow: flowState(flow, action),
        user: { email, name, avatarUrl: view.avatarUrl, state: user?.state ?? null },
        passwordKind,
        loginService: loginServiceTrait ?? null,
        linkedLogins: loginProviders(flow.ui),
      };
      if (status < 400) return body;
      const error = options.error ?? mapIdentityProviderError(400, flow, t);
      return { ...errorBody(error), ...body };
    },
  });
}

function fragmentOf(view: ProfileSettingsView, section: ProfileRender['fragment']): ReactElement {
  const { ui, action, failedMethod, fieldErrors } = view.settings;
  switch (section) {
    case 'avatar':
      return createElement(AvatarSection, {
        name: view.name || view.email,
        avatarUrl: view.avatarUrl,
        error: view.avatarError,
        unavailable: view.backendUnavailable,
        flowId: view.settings.flowId,
      });
    case 'password':
      return createElement(PasswordSection, {
        ui,
        action,
        kind: view.passwordKind,
        loginService: view.loginService,
        withErrors: failedMethod === 'password',
        fieldErrors,
      });
    case 'oidc':
      return createElement(LinkedLoginsSection, { ui, action, withErrors: failedMethod === 'oidc', loginService: view.loginService });
    default:
      return createElement(NameSection, { ui, action, withErrors: failedMethod === 'profile', fieldErrors });
  }
}

/** The account waits for deletion: the only thing to do here is restore it (or leave). */
export function renderReactivate(req: Request, res: Response, user: CurrentUser, options: { status?: number; error?: string } = {}): void {
  const t = translator(req);
  const session = sessionOf(res);
  const traits = session.identity?.traits ?? {};
  const status = options.status ?? 200;
  respondForm(req, res, {
    status,
    title: t('profile.reactivate.title'),
    page: () =>
      createElement(ReactivateAccountPage, {
        email: traitText(traits, 'email') ?? user.email ?? '',
        name: traitText(traits, 'name') ?? user.name ?? '',
        avatarUrl: user.avatarUrl,
        scheduledAt: user.deletionScheduledAt,
        error: options.error,
      }),
    fragment: () =>
      createElement(ReactivateAccountPage, {
        email: traitText(traits, 'email') ?? '',
        name: traitText(traits, 'name') ?? '',
        avatarUrl: user.avatarUrl,
        scheduledAt: user.deletionScheduledAt,
        error: options.error,
      }),
    json: () => ({
      state: user.state,
      deletionScheduledAt: user.deletionScheduledAt,
      reactivate: REACTIVATE_PATH,
      user: { email: user.email, name: user.name, avatarUrl: user.avatarUrl, state: user.state },
      ...(options.error ? { code: 'reactivation_failed', message: options.error } : {}),
    }),
  });
}

/** Loads the settings flow named by ?flow= (or a new one); answers for itself when there is none. */
export async function settingsFlowOrAnswer(req: Request, res: Response, id: unknown): Promise<{ flow: KratosFlow; created: boolean } | null> {
  const loaded = await loadFlow(req, res, 'settings', id);
  if (loaded.ok) return { flow: loaded.flow, created: loaded.created };
  if (loaded.status === 401) {
    signInAgain(req, res, PROFILE_PATH);
    return null;
  }
  respondError(req, res, mapIdentityProviderError(loaded.status, loaded.body, translator(req)));
  return null;
}
