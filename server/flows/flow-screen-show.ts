/**
 * The GET side of the flow-screen runner (server/flows/flow-screen.ts), and the rendering both sides share.
 *
 *   GET  load the flow (`?flow=`) or create one and show it; a signed-in browser on a guest screen → on to return_to
 *
 * A new flow is shown on the same request (decision 190): no 303 to `?flow=` first, which cost a round trip
 * on every first visit. The form posts to the flow's address (`screen.action`), so nothing needs JavaScript;
 * with it, the page puts the flow's address (`newFlowAddress`) in the address bar, so a reload reuses the flow
 * (`res.locals.flowAddress` → the document's `data-address`, read by client/islands/enhance.ts).
 */
import type { LoadedFlow, CreateFlowParams } from './kratos.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import type { FlowScreen, ScreenRequest, ScreenState } from './flow-screen.ts';
import { formJson, respondWithoutFlow, translateFieldErrors } from './form-answers.ts';
import { restartNotice } from './flow-replacement.ts';
import { loadFlow } from './kratos.ts';
import { respondForm, respondRedirect, responseMode } from './respond.ts';
import { translateValidation } from './schemas.ts';

export type Errors = { fieldErrors?: Record<string, string[]>; formErrors?: string[]; code?: string };

/** Renders the screen for `flow`, the three ways. Errors come as untranslated keys. */
export async function renderScreen<Body>(def: FlowScreen<Body>, screen: ScreenRequest, flow: KratosFlow, status: number, errors: Errors = {}) {
  const shown = def.prepare ? def.prepare(flow, screen) : flow;
  const action = screen.action(shown.id);
  const { t, req, res } = screen;
  const fieldErrors = translateFieldErrors(t, errors.fieldErrors) ?? {};
  const formErrors = (errors.formErrors ?? []).map((key) => translateValidation(t, key));
  const state: ScreenState = { flow: shown, status, form: { action, ui: shown.ui, fieldErrors, formErrors } };
  const untouched = status === 200 && formErrors.length === 0 && Object.keys(fieldErrors).length === 0 && showsNothingEntered(req.query, shown);
  if (untouched) res.locals.pageValues = pageValuesOf(shown);
  const view = await def.view(screen, state);
  respondForm(req, res, {
    status,
    title: view.title,
    page: view.page,
    fragment: view.fragment,
    json: () => {
      const json = formJson(t, shown, action, status, errors);
      return status < 400 && view.jsonExtra ? { ...json, ...view.jsonExtra } : json;
    },
  });
}

/**
 * Whether a page of `flow` shows nothing anyone entered: no message, every input empty but the CSRF
 * token and the buttons (whose values are the methods' and providers' names), on an address with no query
 * but the flow id. Such a page repeats from request to request but for its own values (pageValuesOf), and
 * is sent from a kept template (decision 241); a page with anything a person typed is compressed on its own,
 * so how fast it comes back cannot tell whether someone else's page held the same text.
 */
export function showsNothingEntered(query: Record<string, unknown>, flow: KratosFlow): boolean {
  if (Object.keys(query).some((name) => name !== 'flow') || (flow.ui.messages ?? []).length > 0) return false;
  return flow.ui.nodes.every(({ attributes: a, messages }) => {
    if (messages.length > 0 || a.node_type !== 'input') return false;
    if (a.type === 'submit' || a.type === 'button' || (a.type === 'hidden' && a.name === 'csrf_token')) return true;
    return a.value === undefined || a.value === null || a.value === '' || a.value === false;
  });
}

/** The values a flow's page holds that are made for it: the flow id and its CSRF token (render.tsx adds the request's). */
export function pageValuesOf(flow: KratosFlow): string[] {
  const csrf = flow.ui.nodes.find(({ attributes: a }) => a.name === 'csrf_token')?.attributes.value;
  return typeof csrf === 'string' ? [flow.id, csrf] : [flow.id];
}

export function flowParams<Body>(def: FlowScreen<Body>, screen: ScreenRequest): CreateFlowParams {
  return def.flowParams ? def.flowParams(screen) : { returnTo: screen.query.returnTo };
}

export function load<Body>(def: FlowScreen<Body>, screen: ScreenRequest, id: unknown): Promise<LoadedFlow> {
  return def.load ? def.load(screen, id) : loadFlow(screen.req, screen.res, def.kind, id, flowParams(def, screen));
}

export function signedInTarget(screen: ScreenRequest): string {
  return screen.query.returnTo ?? '/';
}

export function withoutFlow<Body>(def: FlowScreen<Body>, screen: ScreenRequest, failure: Extract<LoadedFlow, { ok: false }>) {
  if (def.onNoFlow) return def.onNoFlow(screen, failure);
  respondWithoutFlow(screen.req, screen.res, failure, signedInTarget(screen));
}

export async function show<Body>(def: FlowScreen<Body>, screen: ScreenRequest): Promise<void> {
  const { req, res } = screen;
  const elsewhere = def.redirectBeforeShow?.(screen);
  if (elsewhere) return respondRedirect(req, res, elsewhere);
  const loaded = await load(def, screen, req.query.flow);
  if (!loaded.ok) return withoutFlow(def, screen, loaded);
  const mode = responseMode(req);
  const newInBrowser = loaded.created && mode !== 'json';
  if (newInBrowser) {
    const address = def.newFlowAddress ? def.newFlowAddress(screen, loaded.flow) : screen.action(loaded.flow.id);
    // An enhanced (fetch) GET cannot be given an address bar: it follows a 303 as before.
    if (mode === 'enhanced') return respondRedirect(req, res, address);
    res.locals.flowAddress = address;
  }
  // A browser that came with a stale id sees the new flow as on a first visit; integrators are told why.
  const notice = newInBrowser ? undefined : restartNotice(loaded.restarted);
  await renderScreen(def, screen, loaded.flow, def.showStatus?.(loaded.flow, screen) ?? 200, { formErrors: notice ? [notice] : [] });
}
