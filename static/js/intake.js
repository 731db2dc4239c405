// The intake check's page (/p/check) and the clerks' "Record a load" (/intake/), made better
// where the browser can:
// - a Print button above the table (without it, the browser's own Print prints the same);
// - where the browser reads QR codes (BarcodeDetector) and has a camera, a Scan button: each
//   passport's QR code scanned adds its signed address (or short code) to the list, until
//   Stop; in a form of one code (data-scan-one), what was scanned is put in its field and the
//   form sent.
// Without JavaScript, or without these, the page works by typing the codes.
import { setUpScanner } from "./scanner.js";
import { gettext, interpolate, ngettext } from "./words.js";

const printButton = document.querySelector("[data-print]");
if (printButton) {
  printButton.hidden = false;
  printButton.addEventListener("click", () => window.print());
}

// The portal's short codes: 8 to 12 of these, any case, one hyphen in the middle ignored.
const SHORT_CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8,12}$/;

// A passport's QR code holds its signed address (HTTPS://…/V/<code in base32>), which goes on
// the list whole: the portal checks its signature and reads its short code. Or null.
const signedAddressOf = (text) =>
  /^HTTPS?:\/\/[^/\s]+\/V\/[A-Z2-7]+\/?$/i.test(text.trim()) ? text.trim().toUpperCase() : null;

// An older passport's QR code holds its look-up address (https://…/p/7KXM4-QHT2W); a code
// alone is taken too. The short code as written there, or null for any other QR code.
const shortCodeOf = (text) => {
  const address = /\/p\/([^/?#\s]+)\/?$/.exec(text.trim());
  let code = address ? address[1] : text.trim();
  try {
    code = decodeURIComponent(code).toUpperCase();
  } catch {
    return null;
  }
  return (code.match(/-/g) || []).length <= 1 && SHORT_CODE.test(code.replace("-", ""))
    ? code
    : null;
};

const bare = (code) => code.replace("-", "");

const form = document.querySelector("[data-scan]");
const list = form?.querySelector("textarea, input[type=text]");
const one = form !== null && "scanOne" in form.dataset;
const limit = Number(form?.dataset.limit) || Infinity;

// What the status says of a code scanned, in whole sentences: of a passport's signed code
// (`signed`), or of a short code (`%(code)s`).
const SAID = {
  signed: {
    lookingUp: () => gettext("Scanned a passport's signed code: looking it up."),
    already: () => gettext("A passport's signed code is on the list already."),
    added: (count) =>
      ngettext("Added a passport's signed code: %(count)s on the list.",
               "Added a passport's signed code: %(count)s on the list.", count), // prettier-ignore
  },
  code: {
    lookingUp: () => gettext("Scanned %(code)s: looking it up."),
    already: () => gettext("%(code)s is on the list already."),
    added: (count) =>
      ngettext("Added %(code)s: %(count)s on the list.", "Added %(code)s: %(count)s on the list.", count),
  },
};

// The code scanned put in the form of one code, which is sent; or added to the list of codes.
const add = (code, said, scanning) => {
  if (one) {
    list.value = code;
    scanning.say(interpolate(said.lookingUp(), { code }));
    scanning.stop();
    form.requestSubmit();
    return;
  }
  const words = list.value.split(/[\s,;]+/).filter(Boolean);
  const listed = words.map((word) => bare(shortCodeOf(word) || word.toUpperCase()));
  if (listed.includes(bare(code))) {
    scanning.say(interpolate(said.already(), { code }));
  } else if (words.length >= limit) {
    const full = ngettext(
      "The list has %(limit)s code, the most checked at once: check it, then scan the rest.",
      "The list has %(limit)s codes, the most checked at once: check them, then scan the rest.",
      limit,
    );
    scanning.say(interpolate(full, { limit }));
  } else {
    list.value = `${list.value.trim() ? `${list.value.trimEnd()}\n` : ""}${code}\n`;
    const count = words.length + 1;
    scanning.say(interpolate(said.added(count), { code, count }));
  }
};

const scanned = (text, scanning) => {
  const signed = signedAddressOf(text);
  const code = shortCodeOf(text);
  if (signed) {
    add(signed, SAID.signed, scanning);
  } else if (code) {
    add(code, SAID.code, scanning);
  } else {
    scanning.say(gettext("That QR code is not a passport's."));
  }
};

const scanning = setUpScanner(form, scanned, {
  refused: gettext("The camera could not be opened: type the codes instead."),
  started: gettext("Scanning: hold each passport's QR code in front of the camera."),
});
form?.addEventListener("submit", () => scanning?.stop());
