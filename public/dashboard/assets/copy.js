// The agency dashboard's only script, a same-origin file (the page CSP allows no inline script):
// reveals the copy buttons beside secrets shown once, and copies on click. The pages work the
// same without it; the secrets are in read-only fields to select by hand.
/* global document, navigator */
"use strict";
(function () {
  var status = document.getElementById("copy-status");
  var say = function (text) { if (status) status.textContent = text; };
  var buttons = document.querySelectorAll("button[data-copy]");
  for (var i = 0; i < buttons.length; i++) {
    (function (button) {
      var field = document.getElementById(button.getAttribute("data-copy"));
      if (!field || !navigator.clipboard) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(field.value).then(
          function () { say(button.getAttribute("data-label") + " copied to the clipboard."); },
          function () { field.select(); say("Could not copy: the text is selected, copy it with the keyboard."); }
        );
      });
    })(buttons[i]);
  }
})();
