// Passkey buttons: <button data-webauthn="register|login|second-factor"
// data-options="URL" data-verify="URL" data-csrf="TOKEN" [data-request="ID"]
// [data-name-input="ID"]>. Uses SimpleWebAuthnBrowser (served from /assets).
'use strict';
(function () {
  function showError(message) {
    var el = document.querySelector('[data-webauthn-error]');
    if (el) {
      el.textContent = message;
      el.hidden = false;
    }
  }

  async function post(url, csrf, body) {
    var res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body),
    });
    var data = await res.json().catch(function () {
      return {};
    });
    // A sensitive change after an old sign-in: the server names the re-authentication page.
    if (!res.ok && res.status === 401 && typeof data.redirect === 'string' && data.redirect.charAt(0) === '/' && data.redirect.charAt(1) !== '/')
      window.location.assign(data.redirect);
    if (!res.ok) throw new Error(data.error_description || 'The request failed.');
    return data;
  }

  async function run(button) {
    var lib = window.SimpleWebAuthnBrowser;
    if (!lib || !lib.browserSupportsWebAuthn()) return showError('This browser does not support passkeys.');
    var d = button.dataset;
    button.disabled = true;
    try {
      var optionsJSON = await post(d.options, d.csrf, {});
      var response =
        d.webauthn === 'register' ? await lib.startRegistration({ optionsJSON: optionsJSON }) : await lib.startAuthentication({ optionsJSON: optionsJSON });
      var nameInput = d.nameInput ? document.getElementById(d.nameInput) : null;
      // The step-up captcha gate's answer (fields marked data-captcha-field), if the page has one.
      var captcha = {};
      document.querySelectorAll('[data-captcha-field]').forEach(function (el) {
        if (el.value) captcha[el.name] = el.value;
      });
      var result = await post(d.verify, d.csrf, {
        response: response,
        request: d.request || undefined,
        name: nameInput ? nameInput.value : undefined,
        captcha: captcha,
      });
      window.location.assign(result.redirect);
    } catch (err) {
      showError(err && err.name === 'NotAllowedError' ? 'The passkey request was cancelled.' : (err && err.message) || 'The passkey could not be used.');
      button.disabled = false;
    }
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-webauthn]');
    if (button) {
      event.preventDefault();
      run(button);
    }
  });
})();
