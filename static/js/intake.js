// The intake check's page (/p/check) and the clerks' "Record a load" (/intake/), made better
// where the browser can:
// - a Print button above the table (without it, the browser's own Print prints the same);
// - where the browser reads QR codes (BarcodeDetector) and has a camera, a Scan button: each
//   passport's QR code scanned adds its signed address (or short code) to the list, until
//   Stop; in a form of one code (data-scan-one), what was scanned is put in its field and the
//   form sent.
// Without JavaScript, or without these, the page works by typing the codes.
"use strict";

(() => {
  const printButton = document.querySelector("[data-print]");
  if (printButton) {
    printButton.hidden = false;
    printButton.addEventListener("click", () => window.print());
  }

  const form = document.querySelector("[data-scan]");
  const canScan =
    form && "BarcodeDetector" in window && navigator.mediaDevices?.getUserMedia !== undefined;
  if (!canScan) {
    return;
  }
  const list = form.querySelector("textarea, input[type=text]");
  const one = "scanOne" in form.dataset;
  const start = form.querySelector("[data-scan-start]");
  const panel = form.querySelector("[data-scan-panel]");
  const video = form.querySelector("[data-scan-video]");
  const stop = form.querySelector("[data-scan-stop]");
  const status = form.querySelector("[data-scan-status]");
  const limit = Number(form.dataset.limit) || Infinity;
  // The portal's short codes: 8 to 12 of these, any case, one hyphen in the middle ignored.
  const SHORT_CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8,12}$/;
  const EVERY_MS = 250;
  let stream = null;
  let timer = null;
  let seen = new Set();

  window.BarcodeDetector.getSupportedFormats()
    .then((formats) => {
      start.hidden = !formats.includes("qr_code");
    })
    .catch(() => {});

  const say = (words) => {
    status.textContent = words;
  };

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

  const add = (code, named = code) => {
    if (one) {
      list.value = code;
      say(`Scanned ${named}: looking it up.`);
      stopScanning();
      form.requestSubmit();
      return;
    }
    const words = list.value.split(/[\s,;]+/).filter(Boolean);
    const listed = words.map((word) => bare(shortCodeOf(word) || word.toUpperCase()));
    if (listed.includes(bare(code))) {
      say(`${named[0].toUpperCase()}${named.slice(1)} is on the list already.`);
    } else if (words.length >= limit) {
      say(`The list has ${limit} codes, the most checked at once: check them, then scan the rest.`);
    } else {
      list.value = `${list.value.trim() ? `${list.value.trimEnd()}\n` : ""}${code}\n`;
      say(`Added ${named}: ${words.length + 1} on the list.`);
    }
  };

  const detector = () => new window.BarcodeDetector({ formats: ["qr_code"] });

  const scan = async (reader) => {
    if (!stream) {
      return;
    }
    try {
      for (const { rawValue } of await reader.detect(video)) {
        if (!seen.has(rawValue)) {
          seen.add(rawValue);
          const signed = signedAddressOf(rawValue);
          const code = shortCodeOf(rawValue);
          if (signed) {
            add(signed, "a passport's signed code");
          } else if (code) {
            add(code);
          } else {
            say("That QR code is not a passport's.");
          }
        }
      }
    } catch {
      // No picture yet: the next try reads the next one.
    }
    timer = window.setTimeout(() => scan(reader), EVERY_MS);
  };

  const stopScanning = () => {
    window.clearTimeout(timer);
    if (!stream) {
      return;
    }
    for (const track of stream.getTracks()) {
      track.stop();
    }
    stream = null;
    video.srcObject = null;
    panel.hidden = true;
    start.hidden = false;
  };

  start.addEventListener("click", async () => {
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: { ideal: "environment" } },
        audio: false,
      });
    } catch {
      say("The camera could not be opened: type the codes instead.");
      return;
    }
    seen = new Set();
    video.srcObject = stream;
    panel.hidden = false;
    start.hidden = true;
    stop.focus();
    say("Scanning: hold each passport's QR code in front of the camera.");
    video.play().catch(() => {});
    scan(detector());
  });

  stop.addEventListener("click", () => {
    stopScanning();
    start.focus();
    say("Scanning stopped.");
  });
  form.addEventListener("submit", stopScanning);
  window.addEventListener("pagehide", stopScanning);
})();
