// The step-up confirmation page: "Confirm" and "Use a passkey" stay disabled
// until the action's checkbox is ticked (the server refuses an unticked answer
// too). The passkey answer carries the tick in its URL (confirm_action=yes).
'use strict';
(function () {
  var box = document.querySelector('[data-step-up-confirm]');
  if (!box) return;
  function sync() {
    document.querySelectorAll('[data-step-up-enable]').forEach(function (el) {
      el.disabled = !box.checked;
      if (el.dataset.verify) {
        var url = el.dataset.verify.replace(/&confirm_action=yes$/, '');
        el.dataset.verify = box.checked ? url + '&confirm_action=yes' : url;
      }
    });
  }
  box.addEventListener('change', sync);
  sync();
})();
