// Copy buttons of long identifiers (api/html/copyable.ts): shown only where a
// script runs and the clipboard is available; the button says when it copied.
'use strict';
(function () {
  if (!navigator.clipboard) return;
  for (const button of document.querySelectorAll('button.copy[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async function () {
      try {
        await navigator.clipboard.writeText(button.dataset.copy);
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Not copied';
      }
      setTimeout(function () {
        button.textContent = 'Copy';
      }, 2000);
    });
  }
})();
