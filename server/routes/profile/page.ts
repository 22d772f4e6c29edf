// What /profile-settings shows (the Kratos settings flow, the backend's user record, one-time notices)
// and its answers the three ways: the page, one section as a fragment, or JSON. The reactivation offer
// replaces it for an account waiting for deletion.
import type { Request, Response } from 'express';
import { createElement, type ReactElement } from 'react';
import { errorBody, type AppError } from '../../../core/errors.ts';
import { mapIdentityProviderError, translateMessage } from '../../../core/kratos/messages.ts';
import type { KratosFlow } from '../../../core/kratos/types.ts';
import { ROUTES } from '../../../core/routes.ts';
import { AvatarSection } from '../../../views/components/profile/AvatarSection.tsx';
import { LinkedLoginsSection } from '../../../views/components/profile/LinkedLoginsSection.tsx';
import { NameSection } from '../../../views/components/profile/NameSection.tsx';
import { PasswordSection } from '../../../views/components/profile/PasswordSection.tsx';
import type { ToastItem } from '../../../views/components/Toasts.tsx';
import { ProfileSettingsPage, ReactivateAccountPage, type ProfileSettingsView } from '../../../views/pages/ProfileSettingsPage.tsx';
import type { CurrentUser } from '../../backend-client.ts';
import type { IslandBundle } from '../../assets.ts';
import { flowState } from '../../flows/flow-replacement.ts';
import { respondForm } from '../../flows/respond.ts';
import { translateValidation } from '../../flows/schemas.ts';
import { translator } from '../../request-context.ts';
import { graceDays, loadUser, sessionOf, settingsAction, signInAgain, type LoadedUser } from './context.ts';
import { loadAccountFacts } from './account-facts.ts';
import { takeFlash } from './flash.ts';
import type { LinkReturn } from './linking.ts';
import { waysInOf } from './ways-in.ts';
import { signOutHrefFor } from '../consent-on-sign-out.ts';
import type { SettingsMethod } from './settings-body.ts';

/** Message Kratos puts on the settings flow it opens after account recovery. */
export const RECOVERED_MESSAGE_ID = 1060001;

function traitText(traits: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = traits?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
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
  error?: AppError;
  /** Which section an enhanced post gets back as its fragment. */
  fragment?: SettingsMethod | 'avatar';
  user?: LoadedUser;
  notices?: ProfileSettingsView['notices'];
  /** How the link or unlink this answer reports went (a failure shows in the login services). */
  linkReturn?: LinkReturn;
};

export type ProfileAnswer = {
  title: string;
  page: () => ReactElement;
  fragment: () => ReactElement;
  /** The JSON state of the screen (a 4xx adds the error's code, message and meta to it). */
  state: Record<string, unknown>;
  /** The error a 4xx reports, when the screen knows it better than Kratos's message (a failed link). */
  error?: AppError;
};

/**
 * Our CSRF token, for JSON callers: the page's own actions (avatar, deletion, restore, sign out everywhere)
 * take it as `_csrf` or `x-csrf-token`, as the page's forms carry it.
 */
const ourCsrfToken = (res: Response): string => String(res.locals.csrfToken ?? '');

/** The settings screen for a flow and the user's record, ready to answer; consumes the one-time notices. */
export async function profileAnswer(req: Request, res: Response, loaded: LoadedUser, options: ProfileRender): Promise<ProfileAnswer> {
  const t = translator(req);
  const user = loaded.user;
  const flow = options.flow;
  const traits = flow.identity?.traits ?? sessionOf(res).identity?.traits ?? {};
  const email = traitText(traits, 'email') ?? user?.email ?? '';
  const name = traitText(traits, 'name') ?? '';
  const flash = takeFlash(req);
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
  const waysIn = waysInOf(req, flow, {
    facts: await loadAccountFacts(req, res),
    flash,
    loginService: traitText(traits, 'loginService'),
    action,
    linkReturn: options.linkReturn,
    oidcFailed: options.failedMethod === 'oidc',
  });
  const view: ProfileSettingsView = {
    email,
    name,
    avatarUrl: user?.avatarUrl ?? null,
    backendUnavailable: loaded.unavailable,
    avatarError: options.avatarError,
    notices,
    settings: { ui: flow.ui, flowId: flow.id, action, failedMethod: options.failedMethod, fieldErrors },
    password: waysIn.password,
    linkedLogins: waysIn.linkedLogins,
    recovered: recoveredMessage ? translateMessage(t, recoveredMessage) : undefined,
    confirmDelete: req.query.confirm === 'delete-account',
    graceDays: graceDays(req),
  };
  res.locals.toasts = toasts;
  // The page's islands come as one file (client/profile.ts, decision 220).
  res.locals.islandBundle = 'profile' satisfies IslandBundle;
  return {
    title: t('profile.title'),
    page: () => createElement(ProfileSettingsPage, view),
    fragment: () => fragmentOf(view, options.fragment),
    state: {
      flow: flowState(flow, action),
      user: { email, name, avatarUrl: view.avatarUrl, state: user?.state ?? null },
      loginService: traitText(traits, 'loginService') ?? null,
      ...waysIn.json,
      csrf_token: ourCsrfToken(res),
    },
    error: waysIn.error,
  };
}

/** Renders the settings screen for a flow (page, fragment or JSON); the reactivation offer instead while deletion is pending. */
export async function renderProfile(req: Request, res: Response, options: ProfileRender): Promise<void> {
  const loaded = options.user ?? (await loadUser(req, res));
  if (loaded.signedOut) return signInAgain(req, res);
  if (loaded.user?.state === 'pending_deletion') return renderReactivate(req, res, loaded.user);
  const answer = await profileAnswer(req, res, loaded, options);
  // Shown in answer to one of the page's actions (/profile-settings/avatar…, which answers no GET): the
  // page's links back (the language switcher) lead to the page itself, not to the action (a 404).
  if (req.path !== ROUTES.profile) res.locals.flowAddress ??= settingsAction(options.flow.id);
  const status = options.status ?? 200;
  const error = () => options.error ?? answer.error ?? mapIdentityProviderError(400, options.flow, translator(req));
  respondForm(req, res, { ...answer, status, json: () => (status < 400 ? answer.state : { ...errorBody(error()), ...answer.state }) });
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
        kind: view.password.kind,
        loginService: view.password.loginService,
        email: view.email,
        changedAt: view.password.changedAt,
        justSaved: view.password.justSaved,
        withErrors: failedMethod === 'password',
        fieldErrors,
      });
    case 'oidc':
      return createElement(LinkedLoginsSection, view.linkedLogins);
    default:
      return createElement(NameSection, { ui, action, withErrors: failedMethod === 'profile', fieldErrors });
  }
}

/**
 * The account waits for deletion: the only thing to do here is restore it (or leave). `returnTo` (checked
 * against the allow-list by the caller) is where a sign-in was going: the restore goes on there.
 */
export function renderReactivate(req: Request, res: Response, user: CurrentUser, options: { status?: number; error?: string; returnTo?: string } = {}): void {
  const t = translator(req);
  const traits = sessionOf(res).identity?.traits ?? {};
  const status = options.status ?? 200;
  const view = (fallback: CurrentUser | null) =>
    createElement(ReactivateAccountPage, {
      email: traitText(traits, 'email') ?? fallback?.email ?? '',
      name: traitText(traits, 'name') ?? fallback?.name ?? '',
      avatarUrl: user.avatarUrl,
      scheduledAt: user.deletionScheduledAt,
      error: options.error,
      returnTo: options.returnTo,
      signOutHref: signOutHrefFor(req, options.returnTo),
    });
  respondForm(req, res, {
    status,
    title: t('profile.reactivate.title'),
    page: () => view(user),
    fragment: () => view(null),
    json: () => ({
      state: user.state,
      deletionScheduledAt: user.deletionScheduledAt,
      reactivate: ROUTES.reactivate,
      csrf_token: ourCsrfToken(res),
      user: { email: user.email, name: user.name, avatarUrl: user.avatarUrl, state: user.state },
      ...(options.returnTo ? { return_to: options.returnTo } : {}),
      ...(options.error ? { code: 'reactivation_failed', message: options.error } : {}),
    }),
  });
}
