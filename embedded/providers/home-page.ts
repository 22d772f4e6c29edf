// What the provider's origin answers at `/`: who it is, where its discovery document is, and its
// accounts, for a person trying `npm start`.
import type { ProviderAccount } from './accounts.ts';
import type { FakeProvider } from './fake.ts';
import { escapeHtml } from './http.ts';

export function homePage(info: FakeProvider, accounts: ProviderAccount[]): string {
  const discovery = `${info.issuer}/.well-known/openid-configuration`;
  const rows = accounts.map((a) => `<li>${escapeHtml(a.name)} &lt;${escapeHtml(a.email)}&gt; <code>${escapeHtml(a.sub)}</code></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.label)} (embedded test provider)</title></head><body>
<h1>${escapeHtml(info.label)}: embedded test provider</h1>
<p>An OpenID Provider for development and tests only. Issuer <code>${escapeHtml(info.issuer)}</code>,
discovery <a href="${escapeHtml(discovery)}">${escapeHtml(discovery)}</a>, client id <code>${escapeHtml(info.clientId)}</code>.</p>
${info.gsiScriptUrl ? `<p>One Tap stand-in script: <code>${escapeHtml(info.gsiScriptUrl)}</code></p>` : ''}
<h2>Accounts</h2><ul>${rows}</ul></body></html>`;
}
