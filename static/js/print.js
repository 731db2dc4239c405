// A page made to be printed (a batch's signed codes): its Print button, shown only where this
// runs; without JavaScript the browser's own Print prints the same page.
"use strict";

for (const button of document.querySelectorAll("[data-print]")) {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
}
