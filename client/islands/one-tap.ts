// Google One Tap island, an entry of its own: the page loads it only where the server rendered its
// markup (views/components/OneTap.tsx: a hidden form, `data-island="one-tap"`), so no other page pays for
// it. Once the page has loaded (its load event) it loads Google Identity Services from `data-src`, records
// whether that worked in `data-gsi-loaded` (spec §3 "gsiLoaded"), initialises it with our client id and
// the nonce the server issued, and prompts. The credential Google hands back is posted with the form,
// whose `g_csrf_token` matches the cookie the server set (Google's double-submit rule; decision 120).
// Kept tiny on purpose: /sign-in may load 6 KB of script in all (issue 12).

type OneTapForm = HTMLFormElement & { credential: HTMLInputElement };
type Gsi = { initialize(options: object): void; prompt(): void };

const form = document.querySelector<OneTapForm>('[data-island=one-tap]');

if (form) {
  const data = form.dataset;
  const load = (): void => {
    const script = document.createElement('script');
    script.src = data.src!;
    script.onload = () => {
      data.gsiLoaded = 'true';
      const gsi = (window as unknown as { google: { accounts: { id: Gsi } } }).google.accounts.id;
      gsi.initialize({
        client_id: data.clientId,
        nonce: data.nonce,
        callback: (answer: { credential: string }) => {
          form.credential.value = answer.credential;
          form.submit();
        },
      });
      gsi.prompt();
    };
    script.onerror = () => (data.gsiLoaded = 'false');
    document.head.append(script);
  };
  // `request_google_sign_in` prompts at once. Otherwise after the load event (a module script runs
  // before it): Google's script never competes with the page's own.
  if (data.prompt) load();
  else addEventListener('load', load);
}
