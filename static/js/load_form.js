// The clerk's load form (Record a load, and its correction), made better where JavaScript
// runs: beside each quality result the site has a specification of (its bounds in the
// input's data-lowest and data-highest), whether the value typed is within it, said as the
// clerk types. Without JavaScript the specification is written beside the field, and the
// form warns of a load accepted out of specification when it is sent.
import { gettext } from "./words.js";

const number = (text) => {
  const typed = text.trim().replace(",", ".");
  return /^-?\d+(\.\d+)?$/.test(typed) ? Number(typed) : null;
};

for (const input of document.querySelectorAll("input[data-lowest], input[data-highest]")) {
  const mark = document.createElement("p");
  mark.className = "spec-mark";
  mark.setAttribute("aria-live", "polite");
  input.after(mark);
  const lowest = input.dataset.lowest ? Number(input.dataset.lowest) : -Infinity;
  const highest = input.dataset.highest ? Number(input.dataset.highest) : Infinity;
  const judge = () => {
    const value = number(input.value);
    if (value === null) {
      mark.textContent = "";
      mark.classList.remove("spec-out");
    } else if (value >= lowest && value <= highest) {
      mark.textContent = gettext("✓ Within the site's specification.");
      mark.classList.remove("spec-out");
    } else {
      mark.textContent = gettext("✗ Out of the site's specification.");
      mark.classList.add("spec-out");
    }
  };
  input.addEventListener("input", judge);
  judge();
}
