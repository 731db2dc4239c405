// Passports' QR codes read with the phone's camera, where the browser can (BarcodeDetector that
// reads QR codes, a camera, and the page's Permissions-Policy allowing it): the one scanner of the intake check, the clerks' "Record a load" and the offline
// checker. `box` holds its parts, found by their data-scan-* attributes: the Scan button
// (start, hidden until the browser says it reads QR codes), the panel with the video and the
// Stop button, and the status that says what happens. Without them, the page is left as it is.
"use strict";

import { gettext } from "./words.js";

const EVERY_MS = 250;

// Sets up the scanner of `box`; each QR code seen (once each time Scan is pressed) is given to
// `onCode(text, scanning)`, where `scanning.say(words)` tells the user and `scanning.stop()`
// stops the camera. `words` says what the status says when the camera is refused and when it
// starts. Returns `scanning`, or null where the browser cannot scan.
export const setUpScanner = (box, onCode, words) => {
  const mayUseTheCamera = document.featurePolicy?.allowsFeature("camera") ?? true;
  if (!box || !("BarcodeDetector" in window) || !navigator.mediaDevices?.getUserMedia
      || !mayUseTheCamera) {
    return null;
  }
  const [start, stop, panel, video, status] = ["start", "stop", "panel", "video", "status"].map(
    (part) => box.querySelector(`[data-scan-${part}]`),
  );
  let stream = null;
  let timer = null;
  let seen = new Set();

  const scanning = {
    say(said) {
      status.textContent = said;
    },
    stop() {
      window.clearTimeout(timer);
      for (const track of stream?.getTracks() || []) {
        track.stop();
      }
      stream = null;
      video.srcObject = null;
      panel.hidden = true;
      start.hidden = false;
    },
  };

  // The Scan button stays hidden unless QR codes can be read and there is a camera to read them.
  Promise.all([window.BarcodeDetector.getSupportedFormats(), navigator.mediaDevices.enumerateDevices()])
    .then(([formats, devices]) => {
      const aCamera = devices.some((device) => device.kind === "videoinput");
      start.hidden = !(formats.includes("qr_code") && aCamera);
    })
    .catch(() => {});

  const scan = async (reader) => {
    if (!stream) {
      return;
    }
    try {
      for (const { rawValue } of await reader.detect(video)) {
        if (stream && !seen.has(rawValue)) {
          seen.add(rawValue);
          onCode(rawValue, scanning);
        }
      }
    } catch {
      // No picture yet: the next try reads the next one.
    }
    if (stream) {
      timer = window.setTimeout(() => scan(reader), EVERY_MS);
    }
  };

  start.addEventListener("click", async () => {
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: { ideal: "environment" } },
        audio: false,
      });
    } catch {
      scanning.say(words.refused);
      return;
    }
    seen = new Set();
    video.srcObject = stream;
    panel.hidden = false;
    start.hidden = true;
    stop.focus();
    scanning.say(words.started);
    video.play().catch(() => {});
    scan(new window.BarcodeDetector({ formats: ["qr_code"] }));
  });
  stop.addEventListener("click", () => {
    scanning.stop();
    start.focus();
    scanning.say(gettext("Scanning stopped."));
  });
  window.addEventListener("pagehide", () => scanning.stop());
  return scanning;
};
