/**
 * /profile-settings (login required): name, password and linked logins on Kratos's settings flow,
 * served by the flow-screen runner (server/flows/flow-screen.ts). The avatar (profile/avatar.ts) and
 * deletion and reactivation (profile/account.ts) go through the user backend and mount here too.
 *
 *   GET  /profile-settings[?flow=&confirm=delete-account]   the page (JSON: flow, user, password kind…);
 *                                                           a new flow is shown at once (decision 190)
 *   POST /profile-settings?flow=                            method=profile | password | oidc (Kratos's csrf_token)
 *
 * What is this screen's own: the backend's user record is loaded first (an account waiting for deletion
 * gets the reactivation offer), the Kratos body is built from the flow itself (settings-body.ts), a save
 * or a restart answers with a toast and a redirect back to the flow, and a change Kratos refuses as
 * `session_refresh_required` (the sign-in is too old) sends the user through /sign-in?refresh=true and
 * back to the same flow to submit again; nothing is changed before.
 */
import type { RequestHandler, Response, Router } from 'express';
import { AppError } from '../../core/errors.ts';
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import { pathWithQuery, ROUTES } from '../../core/routes.ts';
import { flowScreenRoutes, type FlowScreen, type ScreenRequest } from '../flows/flow-screen.ts';
import { pageValuesOf } from '../flows/flow-screen-show.ts';
import { awaitsDeletion, markDeletion } from '../flows/deletion-pending.ts';
import { errorId } from '../flows/kratos.ts';
import { withNodeValue, withoutEarlierErrors } from '../flows/flow-replacement.ts';
import { respondError, respondRedirect, responseMode } from '../flows/respond.ts';
import { requireLogin, sessionEmail } from '../flows/session.ts';
import { translateValidation } from '../flows/schemas.ts';
import { errorResponse } from '../openapi/registry.ts';
import { configOf, translator } from '../request-context.ts';
import { provideCsrfToken } from '../security/csrf.ts';
import { safeReturnTo } from '../security/return-to.ts';
import { accountRoutes } from './profile/account.ts';
import { avatarRoutes } from './profile/avatar.ts';
import { loadAccountFacts, recordPasswordChange, type AccountFacts } from './profile/account-facts.ts';
import { answerNoFlow, flowIdOf, loadUser, reauthenticate, sessionOf, settingsAction, signInAgain, type LoadedUser } from './profile/context.ts';
import { answerLinkRedirect, continueLink, linkedProviderOf, linkNotedFor, linkRefusal, noteLinkAwaitingSignIn } from './profile/linking.ts';
import { settlePageLoads, startPageLoads, startSubmitLoads, takeSettingsFlow, takeSubmittedFlow } from './profile/page-loads.ts';
import { savedToast } from './profile/ways-in.ts';
import { addFlash } from './profile/flash.ts';
import { profileAnswer, renderProfile, renderReactivate } from './profile/page.ts';
import { pendingDeletionState, redirectResult, settingsBody, settingsQuery, settingsState } from './profile/schemas.ts';
import { postedName, SETTINGS_METHODS, settingsMethodOf, settingsSubmitFrom, type SettingsMethod, type SettingsSubmit } from './profile/settings-body.ts';
import { liveSessionsOf } from '../socket/emit.ts';
import { signOutEverywhereRoutes } from './profile/sign-out-everywhere.ts';

/** The documented body; any post parses, since the allow-list in settings-body.ts reads the raw post against the flow. */
const body = settingsBody.catch((ctx) => ctx.value as never);

function postOf(screen: ScreenRequest): Record<string, unknown> {
  return (screen.req.body ?? {}) as Record<string, unknown>;
}

function userOf(res: Response): LoadedUser {
  return res.locals.profileUser as LoadedUser;
}

/**
 * The backend's record decides first: signed out → sign in again; waiting for deletion → only reactivation
 * (with the return_to a sign-in brought, deletion-pending.ts). The identity's deletion marker follows the record.
 * The Kratos calls that do not depend on it start alongside it (page-loads.ts): a GET's settings flow and
 * account facts (unless a noted link may answer the request itself: continueLink), a post's submitted flow.
 * The record's verdict is still read first; the early calls only finish before any answer.
 */
const withUser: RequestHandler = async (req, res, next) => {
  const t = translator(req);
  const flowId = flowIdOf(req);
  if (req.method === 'POST' && !flowId) {
    if (responseMode(req) === 'json') return respondError(req, res, new AppError(400, 'invalid_flow', t('errorMessage.badRequest')));
    return respondRedirect(req, res, ROUTES.profile);
  }
  if (req.method === 'POST') startSubmitLoads(req, res, flowId!);
  else if (req.method === 'GET' && !linkNotedFor(req)) startPageLoads(req, res);
  const loaded = await loadUser(req, res).catch(async (error: unknown) => {
    await settlePageLoads(res);
    throw error;
  });
  if (loaded.signedOut || loaded.user?.state === 'pending_deletion') await settlePageLoads(res);
  if (loaded.signedOut) return signInAgain(req, res, flowId && req.method === 'POST' ? settingsAction(flowId) : req.originalUrl);
  const returnTo = req.method === 'GET' ? safeReturnTo(req.query.return_to, configOf(req)) : undefined;
  if (loaded.user) {
    const pending = loaded.user.state === 'pending_deletion';
    const marked = awaitsDeletion(sessionOf(res));
    await markDeletion(req, sessionOf(res), pending); // a call only when out of step
    // Sent here by a marker the backend no longer agrees with (restored elsewhere): on to where the sign-in was going.
    if (marked && !pending && returnTo) {
      await settlePageLoads(res);
      return respondRedirect(req, res, returnTo);
    }
  }
  if (loaded.user?.state === 'pending_deletion') {
    if (req.method !== 'POST') return renderReactivate(req, res, loaded.user, { returnTo });
    if (responseMode(req) === 'json') return respondError(req, res, new AppError(403, 'account_pending_deletion', t('profile.reactivate.title')));
    return respondRedirect(req, res, ROUTES.profile);
  }
  res.locals.profileUser = loaded;
  next();
};

const FIELD_OF: Record<SettingsMethod, string> = { profile: 'traits.name', password: 'password', oidc: 'link' };

/** The settings form whose field carries an error in this flow, if any. */
function erroredMethodOf(flow: KratosFlow): SettingsMethod | undefined {
  const group = flow.ui.nodes.find((node) => node.messages.some((message) => message.type === 'error'))?.group;
  return (SETTINGS_METHODS as readonly string[]).includes(group ?? '') ? (group as SettingsMethod) : undefined;
}

/** A post our allow-list refuses: the section again with the error where it shows. */
function refuse(screen: ScreenRequest, flow: KratosFlow, built: Extract<SettingsSubmit, { ok: false }>) {
  const method = built.method ?? 'profile';
  const onField = built.reason === 'missing_value' || built.reason === 'too_long';
  const tooLong = method === 'password' ? 'validation.passwordTooLong' : 'validation.nameTooLong';
  const key = built.reason === 'missing_value' ? 'validation.required' : built.reason === 'too_long' ? tooLong : 'errorMessage.badRequest';
  const field = FIELD_OF[method];
  // Not the errors of the post before (a refused password under the password field beside a name refused now),
  // and a refused name as typed, to be corrected rather than typed again.
  const shown = withoutEarlierErrors(flow);
  const typed = method === 'profile' ? postedName(postOf(screen)) : undefined;
  return renderProfile(screen.req, screen.res, {
    status: 400,
    flow: typed === undefined ? shown : withNodeValue(shown, 'traits.name', typed),
    user: userOf(screen.res),
    failedMethod: method,
    fragment: method,
    fieldErrors: onField ? { [field]: [key] } : undefined,
    notices: onField ? undefined : [{ variant: 'error', text: screen.t(key) }],
    error: new AppError(400, 'validation_error', translateValidation(screen.t, key), { field }),
  });
}

/** Saved: back to the flow with the toast (the password section says once that it was changed or set). */
async function saved(screen: ScreenRequest): Promise<void> {
  const { req, res, t } = screen;
  const post = postOf(screen);
  const method = settingsMethodOf(post);
  // Loaded before the submit (fromFlow): whether the password existed, i.e. this was a change, not a first one.
  const hadPassword = method === 'password' && (res.locals.accountFacts as AccountFacts | null | undefined)?.hasPassword;
  if (hadPassword) await recordPasswordChange(req, sessionOf(res).identity!.id, new Date());
  // Pages open on the user's other devices were shown with the old password in force (spec §4).
  if (method === 'password')
    liveSessionsOf(req).forceReload({ identityId: sessionOf(res).identity!.id, exceptSessionId: sessionOf(res).id }, 'password-changed');
  if (responseMode(req) !== 'json') {
    const passwordSaved = method === 'password' ? (hadPassword === false ? 'set' : 'changed') : undefined;
    addFlash(req, { toasts: [savedToast(req, post, passwordSaved, sessionEmail(sessionOf(res)) ?? '')], passwordSaved });
  }
  respondRedirect(req, res, settingsAction(flowIdOf(req)!), { state: 'success', message: t('kratos.1050001') });
}

export const profileSettingsScreen: FlowScreen<unknown> = {
  kind: 'settings',
  paths: [ROUTES.profile],
  body,
  flowParams: () => ({}),
  load: (screen, id) => takeSettingsFlow(screen.req, screen.res, id),
  submitted: (screen, id) => takeSubmittedFlow(screen.req, screen.res, id),
  newFlowAddress: (screen, flow) =>
    pathWithQuery(ROUTES.profile, { flow: flow.id, confirm: screen.req.query.confirm === 'delete-account' ? 'delete-account' : undefined }),
  onNoFlow: (screen, failure) => answerNoFlow(screen.req, screen.res, failure),
  async fromFlow(screen, flow) {
    const built = settingsSubmitFrom(postOf(screen), flow);
    if (!built.ok) return refuse(screen, flow, built).then(() => null);
    if (built.method === 'password') await loadAccountFacts(screen.req, screen.res);
    return built.body;
  },
  async view(screen, state) {
    // A flow shown with errors another page's submit left in it (the invitation's refused password): their section opens.
    const answer = await profileAnswer(screen.req, screen.res, userOf(screen.res), { flow: state.flow, failedMethod: erroredMethodOf(state.flow) });
    // The account's own page, shown to it: rendered and compressed once its inputs repeat (decision 253).
    if (state.status === 200) screen.res.locals.accountPageValues = pageValuesOf(state.flow);
    return { title: answer.title, page: answer.page, fragment: answer.fragment, jsonExtra: answer.state };
  },
  onSuccess: saved,
  // Kratos answers a settings save with the flow itself (state success); any other flow shows its errors.
  async onFlow(screen, flow) {
    if (flow.state === 'success') return (await saved(screen), true);
    const method = settingsMethodOf(postOf(screen));
    const linkReturn = method === 'oidc' ? linkRefusal(postOf(screen), flow) : undefined;
    await renderProfile(screen.req, screen.res, { status: 400, flow, user: userOf(screen.res), failedMethod: method, fragment: method, linkReturn });
    return true;
  },
  onReplaced(screen, flow) {
    addFlash(screen.req, { toasts: [{ key: 'profile.flowRestarted', variant: 'warning' }] });
    respondRedirect(screen.req, screen.res, settingsAction(flow.id));
  },
  onLocation(screen, outcome) {
    const link = linkedProviderOf(postOf(screen));
    if (link) return answerLinkRedirect(screen.req, screen.res, outcome.redirectTo, outcome.body, link, flowIdOf(screen.req)!);
    if (responseMode(screen.req) === 'json') return respondError(screen.req, screen.res, mapIdentityProviderError(422, outcome.body, screen.t));
    respondRedirect(screen.req, screen.res, outcome.redirectTo);
  },
  onSignedIn: (screen, _outcome, submittedId) => respondRedirect(screen.req, screen.res, settingsAction(submittedId)),
  onError(screen, outcome) {
    const { req, res } = screen;
    const back = settingsAction(flowIdOf(req)!);
    if (outcome.status === 403 && errorId(outcome.body) === 'session_refresh_required') {
      const link = linkedProviderOf(postOf(screen));
      if (link) noteLinkAwaitingSignIn(req, res, link, flowIdOf(req)!);
      return reauthenticate(req, res, back, settingsMethodOf(postOf(screen)));
    }
    if (outcome.status === 401) return signInAgain(req, res, back);
    respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, screen.t));
  },
  guards: [requireLogin, provideCsrfToken, withUser, continueLink],
  docs: {
    tag: 'profile',
    query: settingsQuery,
    get: {
      summary: 'Profile settings (Kratos settings flow and the user record)',
      description:
        'Login required. Without `flow` (or with an expired one) a new settings flow is created and shown at once, its id in the form action (decision 190). ' +
        'An account waiting for deletion gets the reactivation offer instead.',
      ok: { description: 'The settings state (or, for an account pending deletion, the reactivation state)', schema: settingsState.or(pendingDeletionState) },
      more: { 401: errorResponse('Not signed in: meta.redirect_browser_to is the sign-in page') },
    },
    post: {
      summary: 'Save the name, change or set the password, or link/unlink a login service',
      description:
        'Posts one settings form of the flow. Only `traits.name` can change through method=profile; every other trait is kept as Kratos has it. ' +
        'A password or login-service change on an old sign-in answers 403 session_refresh_required with meta.redirect_browser_to ' +
        '(/sign-in?refresh=true&return_to=<this flow>); nothing is changed, submit again after signing in.',
      ok: { description: 'Saved (message 1050001); HTML posts get 303 back to the flow', schema: redirectResult },
      invalid: 'Validation error from Kratos or our checks (code validation_error, similarity_password, leaked_password, …)',
      more: {
        403: errorResponse('session_refresh_required (meta.redirect_browser_to), or account_pending_deletion'),
        422: errorResponse('Linking a login service: code browser_location_change_required, meta.redirect_browser_to'),
      },
    },
  },
};

export function profileSettingsRoutes(): Router {
  const router = flowScreenRoutes(profileSettingsScreen);
  router.use(avatarRoutes());
  router.use(accountRoutes());
  router.use(signOutEverywhereRoutes());
  return router;
}
