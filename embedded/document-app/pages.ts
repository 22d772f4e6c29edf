// The document app's few pages: plain HTML, no script, so the whole OAuth2 journey can be read and
// clicked through by a newcomer (and driven by the tests with JavaScript on or off).

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const json = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Document app</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.75rem;overflow:auto}a.button,button{display:inline-block;padding:.5rem 1rem;border:1px solid #333;border-radius:.25rem;background:#fff;color:#000;text-decoration:none;font:inherit;cursor:pointer}</style>
</head>
<body><header><p><a href="/">Document app</a> (demo client)</p></header><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

export function homePage(notice?: string): string {
  return layout(
    'Document app',
    `${notice ? `<p id="notice" role="status">${escapeHtml(notice)}</p>` : ''}
<p>A demo OAuth2 client: it signs you in through the accounts app (authorization code with PKCE) and shows what it got back.</p>
<p><a class="button" id="sign-in" href="/login">Sign in with accounts</a></p>`,
  );
}

export type SignedInView = {
  idTokenClaims: Record<string, unknown>;
  userinfo: unknown;
  refreshToken: boolean;
  scope?: string;
};

export function signedInPage(view: SignedInView): string {
  const name = String(view.idTokenClaims.email ?? view.idTokenClaims.sub ?? '');
  return layout(
    'Signed in',
    `<p id="signed-in-as">Signed in as <strong>${escapeHtml(name)}</strong>.</p>
<h2>ID token claims (signature verified against the provider's JWKS)</h2>
<div id="id-token-claims">${json(view.idTokenClaims)}</div>
<h2>Userinfo</h2>
<div id="userinfo">${json(view.userinfo)}</div>
<h2>Tokens</h2>
<p id="refresh-token">${view.refreshToken ? 'A refresh token came (offline_access granted).' : 'No refresh token came.'}</p>
<p id="granted-scope">Granted scope: ${escapeHtml(view.scope ?? '(not given)')}</p>
<form method="post" action="/logout"><button type="submit" id="sign-out">Sign out</button></form>`,
  );
}

export function errorPage(title: string, detail: Record<string, string | undefined>): string {
  const rows = Object.entries(detail)
    .filter((entry): entry is [string, string] => Boolean(entry[1]))
    .map(([key, value]) => `<dt>${escapeHtml(key)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  return layout(title, `<dl id="error">${rows}</dl><p><a class="button" href="/">Back to the document app</a></p>`);
}

export function openFilesPage(request: { ids: string[]; action: string; userId?: string }): string {
  const items = request.ids.map((id) => `<li><code>${escapeHtml(id)}</code></li>`).join('');
  return layout(
    'Open files',
    `<p id="open-request">${request.action === 'create' ? 'Would create a new file in the Drive folder' : 'Would open files'}:</p>
<p>Action: <code id="open-action">${escapeHtml(request.action)}</code>${request.userId ? `, Drive user: <code id="open-user">${escapeHtml(request.userId)}</code>` : ''}</p>
<ul id="open-ids">${items}</ul>`,
  );
}
