// The step-up confirmation page: "Confirm" and "Use a passkey" stay disabled
// until the action's checkbox is ticked (the server refuses an unticked answer
// too). The passkey answer carries the tick in its URL (confirm_action=yes),
// and the sudo opt-in "Don't ask again for N minutes" when ticked (sudo=yes).
'use strict';
(function () {
  var box = document.querySelector('[data-step-up-confirm]');
  if (!box) return;
  var sudo = document.querySelector('[data-step-up-sudo]');
  function sync() {
    document.querySelectorAll('[data-step-up-enable]').forEach(function (el) {
      el.disabled = !box.checked;
      if (el.dataset.verify) {
        var url = el.dataset.verify.replace(/&confirm_action=yes|&sudo=yes/g, '');
        if (box.checked) url += '&confirm_action=yes';
        if (box.checked && sudo && sudo.checked) url += '&sudo=yes';
        el.dataset.verify = url;
      }
    });
  }
  box.addEventListener('change', sync);
  if (sudo) sudo.addEventListener('change', sync);
  sync();
})();
