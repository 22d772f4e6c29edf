/* global document, window */
// The embedded Google's stand-in for Google Identity Services (https://accounts.google.com/gsi/client),
// served at /gsi/client. It implements the part of `google.accounts.id` the product uses: initialize,
// prompt (a One Tap card of the fake's test accounts), cancel, disableAutoSelect and renderButton.
// The credential comes from the fake (POST /gsi/credential, CORS): an ID token signed with the key of its
// JWKS. It goes to `callback({ credential, select_by })`, or without a callback is posted to `login_uri`
// with `g_csrf_token`, set first as a cookie on the page's own site, Google's double-submit pair.
// Written for a strict CSP: no eval, no inline script, no style attributes (styles go through the CSSOM,
// which CSP allows), text through textContent.
(function () {
  'use strict';
  var script = document.currentScript || document.querySelector('script[src$="/gsi/client"]');
  var origin = new URL(script ? script.src : window.location.href).origin;
  var AUTO_SELECT_OFF = 'g_state_auto_select_off';
  var options = null;
  var card = null;
  var listener = null;

  function css(element, styles) {
    for (var name in styles) element.style[name] = styles[name];
    return element;
  }

  function el(tag, styles, text) {
    var element = css(document.createElement(tag), styles || {});
    if (text !== undefined) element.textContent = text;
    return element;
  }

  // What GIS hands a prompt's moment listener (PromptMomentNotification).
  function moment(type, reason) {
    return {
      getMomentType: function () {
        return type;
      },
      isDisplayMoment: function () {
        return type === 'display';
      },
      isDisplayed: function () {
        return type === 'display' && !reason;
      },
      isNotDisplayed: function () {
        return type === 'display' && !!reason;
      },
      getNotDisplayedReason: function () {
        return type === 'display' ? reason : undefined;
      },
      isSkippedMoment: function () {
        return type === 'skipped';
      },
      getSkippedReason: function () {
        return type === 'skipped' ? reason : undefined;
      },
      isDismissedMoment: function () {
        return type === 'dismissed';
      },
      getDismissedReason: function () {
        return type === 'dismissed' ? reason : undefined;
      },
    };
  }

  function notify(type, reason) {
    if (typeof listener === 'function') listener(moment(type, reason));
  }

  function close(type, reason) {
    if (!card) return;
    card.remove();
    card = null;
    document.removeEventListener('click', onOutsideClick, true);
    notify(type, reason);
  }

  function onOutsideClick(event) {
    if (card && !card.contains(event.target) && options && options.cancel_on_tap_outside !== false) close('skipped', 'tap_outside');
  }

  function randomToken() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return ('0' + b.toString(16)).slice(-2);
      })
      .join('');
  }

  function postToLoginUri(credential, selectBy) {
    var token = randomToken();
    var secure = window.location.protocol === 'https:' ? '; Secure' : '';
    document.cookie = 'g_csrf_token=' + token + '; path=/; SameSite=Lax' + secure;
    var form = el('form');
    form.method = 'post';
    form.action = options.login_uri;
    [
      ['credential', credential],
      ['g_csrf_token', token],
      ['select_by', selectBy],
    ].forEach(function (pair) {
      var input = el('input');
      input.type = 'hidden';
      input.name = pair[0];
      input.value = pair[1];
      form.append(input);
    });
    document.body.append(form);
    form.submit();
  }

  function choose(account, selectBy) {
    return fetch(origin + '/gsi/credential', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: account.email, client_id: options.client_id, nonce: options.nonce }),
    })
      .then(function (response) {
        return response.json();
      })
      .then(function (answer) {
        if (!answer.credential) throw new Error(answer.error_description || 'no credential');
        close('dismissed', 'credential_returned');
        if (typeof options.callback === 'function') options.callback({ credential: answer.credential, select_by: selectBy, clientId: options.client_id });
        else if (options.login_uri) postToLoginUri(answer.credential, selectBy);
      })
      .catch(function () {
        close('skipped', 'issuing_failed');
      });
  }

  function accountButton(account, selectBy) {
    var button = el('button', {
      display: 'flex',
      alignItems: 'center',
      gap: '12px',
      width: '100%',
      padding: '8px 12px',
      margin: '4px 0',
      border: '1px solid #dadce0',
      borderRadius: '8px',
      background: '#fff',
      // Its own text colour: on a dark page the inherited one would be white on this white button.
      color: '#202124',
      cursor: 'pointer',
      font: 'inherit',
      textAlign: 'left',
    });
    button.type = 'button';
    button.dataset.email = account.email;
    var initials = account.name
      .split(/\s+/)
      .slice(0, 2)
      .map(function (w) {
        return w.charAt(0).toUpperCase();
      })
      .join('');
    button.append(
      el(
        'span',
        {
          display: 'inline-flex',
          alignItems: 'center',
          justifyContent: 'center',
          width: '32px',
          height: '32px',
          borderRadius: '50%',
          background: '#1a73e8',
          color: '#fff',
          fontSize: '14px',
          flex: 'none',
        },
        initials,
      ),
    );
    var text = el('span', { display: 'flex', flexDirection: 'column' });
    text.append(el('span', { fontWeight: '600' }, 'Continue as ' + account.name), el('span', { color: '#5f6368', fontSize: '13px' }, account.email));
    button.append(text);
    button.addEventListener('click', function () {
      choose(account, selectBy);
    });
    return button;
  }

  function show(accounts, selectBy) {
    close('skipped', 'auto_cancel');
    card = el('div', {
      position: 'fixed',
      top: '16px',
      right: '16px',
      zIndex: '2147483647',
      width: '360px',
      maxWidth: 'calc(100vw - 32px)',
      boxSizing: 'border-box',
      padding: '16px',
      background: '#fff',
      color: '#202124',
      borderRadius: '8px',
      boxShadow: '0 2px 10px rgba(0,0,0,.3)',
      font: '14px/1.4 system-ui, sans-serif',
    });
    card.setAttribute('role', 'dialog');
    card.setAttribute('aria-label', 'Sign in with Google');
    card.dataset.gsiOneTap = '';
    var header = el('div', { display: 'flex', justifyContent: 'space-between', alignItems: 'center', marginBottom: '8px' });
    header.append(el('strong', {}, 'Sign in to ' + window.location.hostname + ' with Google'));
    var dismiss = el('button', { border: '0', background: 'none', fontSize: '20px', cursor: 'pointer', lineHeight: '1' }, '\u00d7');
    dismiss.type = 'button';
    dismiss.setAttribute('aria-label', 'Close');
    dismiss.addEventListener('click', function () {
      close('skipped', 'user_cancel');
    });
    header.append(dismiss);
    card.append(header);
    accounts.forEach(function (account) {
      card.append(accountButton(account, selectBy));
    });
    card.append(el('p', { margin: '8px 0 0', color: '#5f6368', fontSize: '12px' }, 'Embedded test Google: no password, any account signs in.'));
    document.body.append(card);
    notify('display');
    setTimeout(function () {
      document.addEventListener('click', onOutsideClick, true);
    }, 0);
    var first = card.querySelector('button[data-email]');
    if (first) first.focus();
  }

  function open(selectBy) {
    if (!options || !options.client_id) return notify('display', 'missing_client_id');
    fetch(origin + '/gsi/accounts')
      .then(function (response) {
        return response.json();
      })
      .then(function (answer) {
        var accounts = answer.accounts || [];
        if (accounts.length === 0) return notify('display', 'opt_out_or_no_session');
        var autoAllowed = options.auto_select && selectBy === 'user' && accounts.length === 1 && window.localStorage.getItem(AUTO_SELECT_OFF) !== '1';
        if (autoAllowed) return choose(accounts[0], 'auto');
        show(accounts, selectBy);
      })
      .catch(function () {
        notify('display', 'unknown_reason');
      });
  }

  var id = {
    initialize: function (config) {
      options = Object.assign({}, config);
    },
    prompt: function (momentListener) {
      listener = momentListener || null;
      open('user');
    },
    cancel: function () {
      close('skipped', 'auto_cancel');
    },
    disableAutoSelect: function () {
      window.localStorage.setItem(AUTO_SELECT_OFF, '1');
    },
    renderButton: function (parent, buttonOptions) {
      var button = el(
        'button',
        {
          padding: '8px 16px',
          border: '1px solid #dadce0',
          borderRadius: '4px',
          background: '#fff',
          color: '#3c4043',
          cursor: 'pointer',
          font: '500 14px system-ui, sans-serif',
        },
        buttonOptions && buttonOptions.text === 'signup_with' ? 'Sign up with Google' : 'Sign in with Google',
      );
      button.type = 'button';
      button.addEventListener('click', function () {
        listener = null;
        open('btn');
      });
      parent.append(button);
    },
  };

  window.google = window.google || {};
  window.google.accounts = window.google.accounts || {};
  window.google.accounts.id = id;
})();
