// The "Choose an account" page every authorization passes through: the provider's test accounts as
// buttons (the `login_hint` one focused), a form to add an account, and Cancel (→ `access_denied`).
// Consent is given with the choice, as Google and the others do for a client seen before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import type { AccountStore, ProviderAccount } from './accounts.ts';
import { escapeHtml, readForm, send } from './http.ts';

export interface InteractionContext {
  provider: Provider;
  accounts: AccountStore;
  label: string;
  clientName(clientId: string | undefined): string;
}

export const INTERACTION_PATH = '/interaction/';

export async function handleInteraction(req: IncomingMessage, res: ServerResponse, ctx: InteractionContext): Promise<void> {
  let interaction: Interaction;
  try {
    interaction = await ctx.provider.interactionDetails(req, res);
  } catch {
    return send(res, 400, 'text/html; charset=utf-8', expiredPage(ctx.label));
  }
  if (req.method === 'GET') return send(res, 200, 'text/html; charset=utf-8', chooseAccountPage(ctx, interaction));
  if (req.method !== 'POST') return send(res, 405, 'text/plain', 'Method Not Allowed', { Allow: 'GET, POST' });

  const form = await readForm(req);
  if (form.get('action') === 'cancel') {
    return ctx.provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user cancelled the sign-in.' },
      { mergeWithLastSubmission: false },
    );
  }
  let account: ProviderAccount | undefined;
  let problem = '';
  if (form.get('action') === 'add') {
    try {
      account = ctx.accounts.add({ email: form.get('email') ?? '', name: form.get('name') ?? undefined });
    } catch {
      problem = 'Enter an e-mail address such as someone@example.com.';
    }
  } else {
    account = ctx.accounts.bySub(form.get('sub') ?? '');
    if (!account) problem = 'Choose one of the accounts.';
  }
  if (!account) return send(res, 400, 'text/html; charset=utf-8', chooseAccountPage(ctx, interaction, { problem, email: form.get('email') ?? '' }));

  const { client_id: clientId = '', scope = 'openid', claims } = interaction.params;
  const grant = new ctx.provider.Grant({ accountId: account.sub, clientId });
  grant.addOIDCScope(scope);
  if (claims) grant.addOIDCClaims(requestedClaims(claims));
  const grantId = await grant.save();
  await ctx.provider.interactionFinished(req, res, { login: { accountId: account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

/** The claim names of an OIDC `claims` request parameter (both members). */
function requestedClaims(claims: string): string[] {
  try {
    const parsed = JSON.parse(claims) as { id_token?: object; userinfo?: object };
    return [...Object.keys(parsed.id_token ?? {}), ...Object.keys(parsed.userinfo ?? {})];
  } catch {
    return [];
  }
}

const STYLE = `
  body { font: 16px/1.4 system-ui, sans-serif; margin: 0; background: #f1f3f4; color: #202124; }
  main { max-width: 26rem; margin: 3rem auto; background: #fff; border-radius: 8px; padding: 2rem; box-shadow: 0 1px 3px #0003; }
  h1 { font-size: 1.5rem; margin: 0 0 .25rem; } p { margin: 0 0 1rem; color: #5f6368; }
  .note { font-size: .8rem; }
  ul { list-style: none; padding: 0; margin: 0 0 1rem; }
  li button { display: block; width: 100%; text-align: left; padding: .75rem 1rem; margin: 0 0 .5rem; border: 1px solid #dadce0; border-radius: 6px; background: #fff; font: inherit; cursor: pointer; }
  li button:hover, li button:focus { background: #e8f0fe; border-color: #1a73e8; }
  li button.hinted { border-color: #1a73e8; border-width: 2px; }
  .email { display: block; color: #5f6368; font-size: .9rem; }
  fieldset { border: 1px solid #dadce0; border-radius: 6px; margin: 0 0 1rem; padding: 1rem; }
  label { display: block; margin: 0 0 .75rem; } input { display: block; width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
  .primary, .secondary { padding: .5rem 1rem; border-radius: 4px; font: inherit; cursor: pointer; }
  .primary { background: #1a73e8; color: #fff; border: 0; } .secondary { background: #fff; color: #1a73e8; border: 1px solid #dadce0; }
  .problem { color: #b3261e; font-weight: 600; }
`;

function document(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

function chooseAccountPage(ctx: InteractionContext, interaction: Interaction, state: { problem?: string; email?: string } = {}): string {
  const hint = (interaction.params.login_hint ?? '').trim().toLowerCase();
  const accounts = ctx.accounts.list().filter(inDomain(interaction.params.hd));
  const hinted = accounts.find((a) => a.email.toLowerCase() === hint);
  const action = `${INTERACTION_PATH}${interaction.uid}`;
  const items = accounts
    .map((a) => {
      const isHinted = a === hinted;
      return `<li><button type="submit" name="sub" value="${escapeHtml(a.sub)}"${isHinted ? ' class="hinted" autofocus aria-current="true"' : ''} data-email="${escapeHtml(a.email)}">
<span class="name">${escapeHtml(a.name)}</span><span class="email">${escapeHtml(a.email)}</span></button></li>`;
    })
    .join('\n');
  // An unknown hint is someone not in the list yet: offer to add them.
  const prefill = state.email || (hint && !hinted ? (interaction.params.login_hint ?? '') : '');
  return document(
    `Sign in – ${ctx.label}`,
    `<h1>Choose an account</h1>
<p>to continue to ${escapeHtml(ctx.clientName(interaction.params.client_id))}</p>
<p class="note">${escapeHtml(ctx.label)} (embedded test provider: no password, any account below signs in)</p>
${state.problem ? `<p class="problem" role="alert">${escapeHtml(state.problem)}</p>` : ''}
<form method="post" action="${action}">
<input type="hidden" name="action" value="choose">
<ul>${items}</ul>
</form>
<form method="post" action="${action}">
<fieldset><legend>Use another account</legend>
<input type="hidden" name="action" value="add">
<label>E-mail <input type="email" name="email" required autocomplete="off" value="${escapeHtml(prefill)}"${prefill && !hinted ? ' autofocus' : ''}></label>
<label>Name <input type="text" name="name" autocomplete="off"></label>
<button type="submit" class="primary">Add and continue</button>
</fieldset>
</form>
<form method="post" action="${action}">
<input type="hidden" name="action" value="cancel">
<button type="submit" class="secondary">Cancel</button>
</form>`,
  );
}

/** Google's `hd`: only accounts of that Workspace domain (`*`: of any). */
function inDomain(hd: string | undefined): (account: ProviderAccount) => boolean {
  if (!hd) return () => true;
  return (account) => account.hd !== undefined && (hd === '*' || account.hd === hd);
}

function expiredPage(label: string): string {
  return document(`Sign in – ${label}`, `<h1>This sign-in request has expired</h1><p>Go back to the site you came from and start again.</p>`);
}
