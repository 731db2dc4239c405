// The passport checker (issue 28), on /V/ and on /V/<code> (templates/passports/checker.html
// and signed.html), made better where the browser can:
// - it registers the checker's service worker (/V/worker.js), which keeps the checker's page
//   and the portal's public keys, and keeps the keys fresh whenever there is signal;
// - on the checker's page answered for /V/<code> with no signal, it checks the code on the
//   phone, as portal/lib/signed_codes.py does on the portal (the same strictness), and shows
//   what it found as passports/signed.html does, in the words of the page's <template>s;
// - where the browser reads QR codes (BarcodeDetector) and has a camera, a Scan button: a
//   passport's QR code scanned is opened, and so checked, online or not.
// Without JavaScript the portal's own check of /V/<code> works as ever. Its words are in the
// page's language (./words.js), offline too: the worker keeps the shell and the words in each.
// `window.passportChecker.readCode` is what the benchmark (bench/offline_check.py) times.
import { decode, encode } from "../vendor/cborg/cborg.js";
import { setUpScanner } from "./scanner.js";
import { gettext, interpolate, pageLanguage } from "./words.js";

const config = JSON.parse(document.getElementById("checker-config").textContent);

// --- reading a code (portal/lib/signed_codes.py) -------------------------------------------------

export const State = Object.freeze({
  GENUINE: "genuine",
  EXPIRED: "expired",
  ALTERED: "altered",
  UNKNOWN_KEY: "unknown-key",
  KEY_NOT_IN_USE: "key-not-in-use",
  MALFORMED: "malformed",
});
const ES256 = -7;
const [ALG, KID] = [1, 4];
const [ISSUER, EXPIRES, ISSUED_AT] = [1, 4, 6];
const COSE_SIGN1_TAG = 0xd2; // tag 18 in its one byte, as the portal writes it
const SIGNATURE_BYTES = 64;
const LONGEST_TEXT = 2000;
const CLOCK_SKEW_SECONDS = 5 * 60;
// Half P-256's group order: a signature's s above it is refused, as the portal refuses it
// (signed_codes.HALF_ORDER), since the portal writes only the low one of (r, s) and (r, n - s).
const HALF_ORDER = 0x7fffffff800000007fffffffffffffffde737d56d38bcf4279dce5617e3192a8n;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const CBOR = { useMaps: true };
// Every length and number in its shortest form, none of indefinite length: for the message's
// shape, CBOR written exactly as the portal writes it, and nothing else.
const CBOR_AS_WRITTEN = { useMaps: true, strict: true, allowIndefinite: false };

// The bytes of base32 `text` (RFC 4648, either case, no padding), or null if it is not base32
// written as the portal writes it: unused bits of the last character that are not 0 too.
export const fromBase32 = (text) => {
  if (!text || text.length > LONGEST_TEXT || !/^[A-Za-z2-7]+$/.test(text)) {
    return null;
  }
  if (![0, 2, 4, 5, 7].includes(text.length % 8)) {
    return null;
  }
  const bytes = new Uint8Array(Math.floor((text.length * 5) / 8));
  let [bits, value, at] = [0, 0, 0];
  for (const character of text.toUpperCase()) {
    value = (value * 32 + BASE32.indexOf(character)) & 0xfff; // shifted in, 5 bits a character
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 0xff;
    }
  }
  const unusedBits = value & (2 ** bits - 1);
  return unusedBits === 0 ? bytes : null;
};

const decoded = (bytes, options = CBOR) => {
  try {
    return decode(bytes, options);
  } catch {
    return undefined;
  }
};

// The key id, protected header, payload and signature of a COSE_Sign1 message of the one
// shape the portal signs, written exactly as it writes it; null for anything else.
const partsOf = (message) => {
  if (message[0] !== COSE_SIGN1_TAG) {
    return null;
  }
  const value = decoded(message.subarray(1), CBOR_AS_WRITTEN);
  if (!Array.isArray(value) || value.length !== 4) {
    return null;
  }
  const [protectedBytes, unprotected, payload, signature] = value;
  if (!(unprotected instanceof Map) || unprotected.size !== 0) {
    return null;
  }
  if (![protectedBytes, payload, signature].every((part) => part instanceof Uint8Array)) {
    return null;
  }
  if (signature.length !== SIGNATURE_BYTES) {
    return null;
  }
  const header = decoded(protectedBytes);
  if (!(header instanceof Map) || header.size !== 2 || !header.has(ALG) || !header.has(KID)) {
    return null;
  }
  const kid = header.get(KID);
  if (header.get(ALG) !== ES256 || !(kid instanceof Uint8Array) || kid.some((b) => b > 127)) {
    return null;
  }
  return { kid: String.fromCharCode(...kid), protectedBytes, payload, signature };
};

const hasLowS = (signature) => {
  const hex = Array.from(signature.subarray(32), (b) => b.toString(16).padStart(2, "0")).join("");
  return BigInt("0x" + hex) <= HALF_ORDER;
};

const isNumericDate = (value) => Number.isInteger(value) && value >= 0 && value < 2 ** 40;

const claimsOf = (payload) => {
  const claims = decoded(payload);
  if (!(claims instanceof Map) || typeof claims.get(ISSUER) !== "string") {
    return null;
  }
  return isNumericDate(claims.get(ISSUED_AT)) && isNumericDate(claims.get(EXPIRES)) ? claims : null;
};

const importedKeys = new Map();

const cryptoKey = (jwk) => {
  const named = `${jwk.kid}:${jwk.x}:${jwk.y}`;
  if (!importedKeys.has(named)) {
    const { kty, crv, x, y } = jwk;
    const imported = crypto.subtle.importKey("jwk", { kty, crv, x, y },
      { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]); // prettier-ignore
    importedKeys.set(named, imported);
  }
  return importedKeys.get(named);
};

const stateInTime = (claims, jwk, now) => {
  const [issuedAt, expires] = [claims.get(ISSUED_AT), claims.get(EXPIRES)];
  if (issuedAt > now + CLOCK_SKEW_SECONDS || issuedAt < jwk.from - CLOCK_SKEW_SECONDS) {
    return State.KEY_NOT_IN_USE;
  }
  if (jwk.until !== undefined && expires > jwk.until) {
    return State.KEY_NOT_IN_USE;
  }
  return now >= expires ? State.EXPIRED : State.GENUINE;
};

// The code `text` read with the JWK set `keySet` at `now` (seconds since 1970): its state,
// and, once its signature holds, its claims (a Map) and the key (a JWK) that signed it.
// Never throws on what a stranger sends.
export const readCode = async (text, keySet, now) => {
  const message = fromBase32(text);
  const parts = message && partsOf(message);
  if (!parts) {
    return { state: State.MALFORMED };
  }
  const jwk = (keySet?.keys || []).find((key) => key.kid === parts.kid);
  if (!jwk) {
    return { state: State.UNKNOWN_KEY };
  }
  if (!hasLowS(parts.signature)) {
    return { state: State.ALTERED }; // a genuine code's twin, made by someone else
  }
  const signed = encode(["Signature1", parts.protectedBytes, new Uint8Array(0), parts.payload]);
  let holds = false;
  try {
    holds = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, await cryptoKey(jwk),
                                       parts.signature, signed); // prettier-ignore
  } catch {
    holds = false;
  }
  if (!holds) {
    return { state: State.ALTERED };
  }
  const claims = claimsOf(parts.payload);
  if (!claims) {
    return { state: State.MALFORMED };
  }
  return { state: stateInTime(claims, jwk, now), claims, key: jwk };
};

window.passportChecker = { readCode, fromBase32, State };

// --- what a code says (portal.passports.signing.Checked) ----------------------------------------

const DAY_SECONDS = 24 * 60 * 60;
const SHORT_CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8,12}$/;
// Days and times as the portal writes them (portal.assurance.passport_fields.day_written and
// Django's formats: 21 August 2026, 24-hour times), with the months' names in the page's
// language from the catalogue: a browser's own dates (Intl) lack some languages (Welsh).
const MONTHS = [
  gettext("January"), gettext("February"), gettext("March"), gettext("April"), gettext("May"),
  gettext("June"), gettext("July"), gettext("August"), gettext("September"), gettext("October"),
  gettext("November"), gettext("December"),
]; // prettier-ignore

const written = (day, month, year) => `${day} ${MONTHS[month]} ${year}`;

const dayWritten = (days) => {
  if (!(Number.isInteger(days) && days >= 0 && days < 2900000)) {
    return "";
  }
  const day = new Date(days * DAY_SECONDS * 1000);
  return written(day.getUTCDate(), day.getUTCMonth(), day.getUTCFullYear());
};

// A moment in the phone's own time zone: its day, at its hour and minute.
const momentWritten = (moment) => {
  const time = [moment.getHours(), moment.getMinutes()].map((n) => String(n).padStart(2, "0")).join(":");
  const day = written(moment.getDate(), moment.getMonth(), moment.getFullYear());
  return interpolate(gettext("%(day)s at %(time)s"), { day, time });
};

const normalisedCode = (value) => {
  if (typeof value !== "string") {
    return null;
  }
  const candidate = value.replace(/\s/g, "").toUpperCase();
  const bare = candidate.replace("-", "");
  if ((candidate.match(/-/g) || []).length > 1 || !SHORT_CODE.test(bare)) {
    return null;
  }
  const middle = Math.floor(bare.length / 2);
  return `${bare.slice(0, middle)}-${bare.slice(middle)}`;
};

const claimNamed = (claims, name) =>
  claims.get(config.essentials.find((essential) => essential.name === name)?.claim);

const shown = (essential, value) => {
  if (essential.kind === "day") {
    return dayWritten(value);
  }
  if (essential.kind === "code") {
    return normalisedCode(value) || "";
  }
  return ["string", "number", "bigint"].includes(typeof value) ? String(value) : "";
};

// The summary's clause on the claim when the service last checked it, as
// portal.passports.signing.Checked._claim_then words it: each clause whole in the catalogue.
const claimThen = (claimWasValid, checkedOn, signedOn, status) => {
  const values = { date: checkedOn, status };
  const hasStatus = typeof status === "string" && status !== "";
  if (claimWasValid) {
    if (checkedOn === signedOn) {
      return gettext("the claim was valid when checked then");
    }
    return checkedOn
      ? interpolate(gettext("the claim was valid when checked on %(date)s"), values)
      : gettext("the claim was valid when checked");
  }
  if (checkedOn === signedOn) {
    return hasStatus
      ? interpolate(gettext("the claim was not valid when checked then: its status was %(status)s"), values)
      : gettext("the claim was not valid when checked then: it had no status");
  }
  if (checkedOn) {
    return hasStatus
      ? interpolate(gettext("the claim was not valid when checked on %(date)s: its status was %(status)s"), values)
      : interpolate(gettext("the claim was not valid when checked on %(date)s: it had no status"), values);
  }
  return hasStatus
    ? interpolate(gettext("the claim was not valid when checked: its status was %(status)s"), values)
    : gettext("the claim was not valid when checked: it had no status");
};

const said = (reading, keysUpdated) => {
  const { claims } = reading;
  const status = claimNamed(claims, "status");
  const signedOn = dayWritten(Math.floor(claims.get(ISSUED_AT) / DAY_SECONDS));
  const checkedOn = dayWritten(claimNamed(claims, "check_date"));
  const expiry = claimNamed(claims, "expiry_date");
  const today = Math.floor(Date.now() / 1000 / DAY_SECONDS);
  const certificateExpiredOn = dayWritten(expiry) && expiry <= today ? dayWritten(expiry) : "";
  const claimWasValid = config.validStatuses.includes(status);
  const parts = [
    interpolate(gettext("Genuine: signed by the portal on %(date)s"), { date: signedOn }),
    claimThen(claimWasValid, checkedOn, signedOn, status),
  ];
  if (certificateExpiredOn) {
    parts.push(interpolate(gettext("the certificate expired on %(date)s"), { date: certificateExpiredOn }));
  }
  const expiresOn = dayWritten(Math.floor(claims.get(EXPIRES) / DAY_SECONDS));
  parts.push(interpolate(gettext("this signed copy expires on %(date)s"), { date: expiresOn }));
  parts.push(
    keysUpdated
      ? interpolate(gettext("the claim cannot be checked now without signal (keys last updated %(when)s)"),
          { when: momentWritten(keysUpdated) }) // prettier-ignore
      : gettext("the claim cannot be checked now without signal (keys last updated at a time not known)"),
  );
  return {
    summary: `${parts.join("; ")}.`,
    claimHolds: claimWasValid && !certificateExpiredOn,
  };
};

const rowsOf = (claims) => {
  const shortened = claims.get(config.shortened);
  const cut = new Set(Array.isArray(shortened) ? shortened : []);
  return config.essentials
    .map((essential) => ({ essential, value: shown(essential, claims.get(essential.claim)) }))
    .filter(({ essential, value }) => value || cut.has(essential.claim))
    .map(({ essential, value }) => {
      const row = document.createElement("div");
      row.className = "row";
      const [term, detail] = [document.createElement("dt"), document.createElement("dd")];
      term.textContent = essential.label;
      const note = document.createElement("span");
      note.className = "left-out";
      if (cut.has(essential.claim) && !value) {
        note.textContent = gettext("Left out to fit the code");
        detail.append(note);
      } else if (cut.has(essential.claim)) {
        note.textContent = gettext("(cut short to fit the code)");
        detail.append(`${value}… `, note);
      } else {
        detail.textContent = value;
      }
      row.append(term, detail);
      return row;
    });
};

// --- the checker's page, answered for /V/<code> with no signal ---------------------------------

const TITLES = {
  [State.UNKNOWN_KEY]: gettext("Not recognised"),
  [State.MALFORMED]: gettext("Not a passport's code"),
  [State.ALTERED]: gettext("Not genuine"),
  [State.KEY_NOT_IN_USE]: gettext("Not genuine"),
};

const filled = (id, slots = {}) => {
  const part = document.getElementById(id).content.cloneNode(true);
  for (const [slot, value] of Object.entries(slots)) {
    const place = part.querySelector(`[data-slot="${slot}"]`);
    if (value instanceof Array) {
      place.append(...value);
    } else {
      place.textContent = value;
    }
  }
  return part;
};

const keptKeys = async () => {
  try {
    const response = await fetch(config.keys);
    if (!response.ok) {
      return null;
    }
    const updated = response.headers.get("Date");
    return { keySet: await response.json(), updated: updated ? new Date(updated) : null };
  } catch {
    return null;
  }
};

const heading = (shortCode) => {
  const h1 = document.querySelector("[data-checker-heading]");
  if (shortCode) {
    h1.className = "code";
    // "Passport <span>%(code)s</span>", as passports/signed.html writes it: the code in a
    // <span> wherever the language puts it.
    const [before, after] = gettext("Passport %(code)s").split("%(code)s");
    const code = document.createElement("span");
    code.textContent = shortCode;
    h1.replaceChildren(before, code, after ?? "");
  } else {
    h1.textContent = gettext("A passport's signed code");
  }
};

const showReading = (reading, keysUpdated) => {
  const place = document.querySelector("[data-checker-verdict]");
  const suffix = document.title.includes(" · ") ? document.title.slice(document.title.indexOf(" · ")) : "";
  const shortCode = reading.claims && normalisedCode(claimNamed(reading.claims, "short_code"));
  let title = TITLES[reading.state];
  if (reading.state === State.GENUINE) {
    const { summary, claimHolds } = said(reading, keysUpdated);
    const titled = claimHolds ? gettext("Genuine: %(code)s") : gettext("Genuine, claim not valid: %(code)s");
    title = interpolate(titled, { code: shortCode || "" });
    place.replaceChildren(filled(claimHolds ? "checker-genuine" : "checker-genuine-claim-not-valid", {
      summary, rows: rowsOf(reading.claims), issuer: reading.claims.get(ISSUER), kid: reading.key.kid,
    })); // prettier-ignore
  } else if (reading.state === State.EXPIRED) {
    title = interpolate(gettext("Expired: %(code)s"), { code: shortCode || "" });
    place.replaceChildren(filled("checker-expired", {
      "signed-on": dayWritten(Math.floor(reading.claims.get(ISSUED_AT) / DAY_SECONDS)),
      "expires-on": dayWritten(Math.floor(reading.claims.get(EXPIRES) / DAY_SECONDS)),
      "short-code": shortCode || "",
    })); // prettier-ignore
  } else {
    place.replaceChildren(filled(`checker-${reading.state}`), filled("checker-not-signed"));
  }
  heading([State.GENUINE, State.EXPIRED].includes(reading.state) ? shortCode : null);
  document.title = `${title}${suffix}`;
};

const checkHere = async (code) => {
  document.querySelector("[data-checker-start]").hidden = true;
  document.querySelector("[data-checker-result]").hidden = false;
  const kept = await keptKeys();
  if (!kept) {
    heading(null);
    document.querySelector("[data-checker-verdict]").replaceChildren(filled("checker-no-keys"));
    return;
  }
  const reading = await readCode(code, kept.keySet, Math.floor(Date.now() / 1000));
  showReading(reading, kept.updated);
};

const codeInAddress = () => {
  const rest = window.location.pathname.slice(config.scope.length).replace(/\/$/, "");
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
};

// --- the worker, and the Scan button ------------------------------------------------------------

const registered = "serviceWorker" in navigator
  ? navigator.serviceWorker
      .register(config.worker, { scope: config.scope, updateViaCache: "none" })
      .catch(() => null)
  : Promise.resolve(null); // prettier-ignore

// The worker answers /V/ addresses with no signal in the language of this page (the person's
// choice, else their browser's, as the portal chose it).
registered
  .then((registration) => registration && navigator.serviceWorker.ready)
  .then((ready) => ready?.active?.postMessage({ language: pageLanguage() }));

const isShell = document.querySelector("[data-checker-result]") !== null;
if (isShell && codeInAddress()) {
  checkHere(codeInAddress());
} else if (navigator.onLine) {
  // With signal: the keys fetched anew through the worker, which keeps them.
  registered.then((registration) => registration && navigator.serviceWorker.ready).then(keptKeys);
}

// A QR code scanned: a passport's code of this portal is opened (and checked, with signal or
// without); any other is said to be what it is.
const scanned = (text, scanning) => {
  const found = /^HTTPS?:\/\/([^/\s]+)\/V\/([A-Z2-7]+)\/?$/i.exec(text.trim());
  if (!found) {
    scanning.say(gettext("That QR code is not a passport's."));
  } else if (found[1].toLowerCase() !== window.location.host.toLowerCase()) {
    const words = gettext("That QR code is a passport of another portal, %(portal)s: open it with the phone's camera.");
    scanning.say(interpolate(words, { portal: found[1].toLowerCase() }));
  } else {
    scanning.say(gettext("Scanned a passport's code: checking it."));
    scanning.stop();
    window.location.assign(`${config.scope}${found[2]}`);
  }
};

setUpScanner(document.querySelector("[data-scan]"), scanned, {
  refused: gettext("The camera could not be opened: open the QR code with the phone's camera instead."),
  started: gettext("Scanning: hold the passport's QR code in front of the camera."),
});
