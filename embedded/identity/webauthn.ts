// GET /.well-known/ory/webauthn.js. Kratos v1.3.1 registers this route for its webauthn and passkey
// strategies whether or not they are enabled, so the public port always serves it: 200,
// `Content-Type: text/javascript; charset=UTF-8`, and the public router's no-cache header (which
// writeReply adds to every answer). Pages built for Kratos may load it with a <script> tag.
//
// The stand-in has no WebAuthn or passkeys, so this script only has the same outline as Kratos's: one
// guarded initialisation that defines the entry points Kratos's UI nodes call from their onclick
// attributes (window.oryWebAuthnLogin, …, and the older __ory… names). Each tells the console that
// WebAuthn is not available here instead of calling the browser's credential API.
import type { Reply } from './http.ts';

const SCRIPT = `;(function () {
  if (typeof window === 'undefined' || window.__oryWebAuthnInitialized) {
    return
  }

  function notAvailable(name) {
    return function () {
      console.warn(name + ': WebAuthn and passkeys are not available on this identity service (development stand-in).')
    }
  }

  var entryPoints = [
    'WebAuthnLogin',
    'WebAuthnRegistration',
    'PasskeyLogin',
    'PasskeyLoginAutocompleteInit',
    'PasskeyRegistration',
    'PasskeySettingsRegistration',
  ]
  for (var i = 0; i < entryPoints.length; i++) {
    var fn = notAvailable('ory' + entryPoints[i])
    window['ory' + entryPoints[i]] = fn
    window['__ory' + entryPoints[i]] = fn
  }

  window.__oryWebAuthnInitialized = true
})()
`;

export async function webauthnScript(): Promise<Reply> {
  return { status: 200, headers: { 'Content-Type': 'text/javascript; charset=UTF-8' }, text: SCRIPT };
}
