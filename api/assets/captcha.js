// The step-up page's captcha gate, proof of work: fetches a pow_challenge from
// /api/oauth/2fa/info, solves it in a Web Worker (/assets/pow-worker.js),
// shows the nonces tried in the role="status" element and fills the hidden
// pow_challenge + pow_nonce fields sent with the factor (the form, and the
// passkey answer through /assets/webauthn.js).
/* global Worker */
'use strict';
(function () {
  var box = document.querySelector('[data-pow]');
  if (!box) return;
  var status = box.querySelector('[data-pow-status]');
  var challengeField = box.querySelector('input[name="pow_challenge"]');
  var nonceField = box.querySelector('input[name="pow_nonce"]');
  function fail() {
    status.textContent = 'The browser check could not run. Reload the page to try again.';
  }
  fetch(box.dataset.info, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
    .then(function (res) {
      return res.json();
    })
    .then(function (info) {
      if (!info.pow_challenge || !window.Worker) return fail();
      var worker = new Worker('/assets/pow-worker.js');
      worker.onerror = fail;
      worker.onmessage = function (event) {
        var m = event.data;
        if (m.type === 'progress') {
          status.textContent = 'Checking your browser… ' + m.tried + ' tried';
        } else if (m.type === 'done') {
          challengeField.value = info.pow_challenge;
          nonceField.value = m.nonce;
          status.textContent = 'Browser check done (' + m.tried + ' tried).';
          box.setAttribute('data-pow-done', 'yes');
          worker.terminate();
        }
      };
      worker.postMessage({ challenge: info.pow_challenge, difficulty: info.pow_difficulty });
    })
    .catch(fail);
})();
