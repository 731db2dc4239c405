// The offline checker's service worker (scope /V/), served by /V/worker.js after
// `self.CHECKER`: where Workbox is, the files it keeps (each with a digest of its content),
// the checker's page and the keys' address (portal/passports/views/checker.py).
// - It keeps the checker's files (Workbox's precaching), the checker's page as someone signed
//   out sees it (the shell), and the portal's public keys, fetched anew whenever there is
//   signal and kept with the time the portal gave them.
// - A /V/ address opened with signal goes to the portal as ever; with none (or no answer in
//   NETWORK_SECONDS, or a portal that fails), it is answered with the shell, whose script
//   checks the code on the phone.
// - It keeps the shell in each of the portal's languages (`languages`, as pages' `lang` name
//   them; each asked with its Accept-Language and no cookie), and the scripts' words in each
//   (the JavaScript catalogues, among the files kept). Offline, the shell is in the language
//   of the last /V/ page opened with signal (the person's choice, which the checker's script
//   posts here), else in the browser's.
"use strict";

importScripts(self.CHECKER.workbox);
workbox.setConfig({ modulePathPrefix: self.CHECKER.workboxModules, debug: false });

const { precacheAndRoute, cleanupOutdatedCaches } = workbox.precaching;
const { registerRoute } = workbox.routing;
const { NetworkFirst, NetworkOnly } = workbox.strategies;

const SHELL_CACHE = "checker-shell";
const KEYS_CACHE = "checker-keys";
const NETWORK_SECONDS = 8;
const { languages } = self.CHECKER;
const shellKey = (language) => `${self.CHECKER.shell}?language=${encodeURIComponent(language)}`;
const CHOSEN = `${self.CHECKER.shell}?language=chosen`; // the language of the last page seen
const shellRequest = (language) =>
  new Request(`${shellKey(language)}&revision=${self.CHECKER.shellRevision}`, {
    credentials: "omit",
    headers: { "Accept-Language": language },
  });

precacheAndRoute(self.CHECKER.kept);
cleanupOutdatedCaches();

const keep = async (cacheName, key, request) => {
  const response = await fetch(request);
  if (!response.ok) {
    throw new Error(`${request.url} answered ${response.status}`);
  }
  await (await caches.open(cacheName)).put(key, response);
};

self.addEventListener("install", (event) => {
  event.waitUntil(
    Promise.all([
      ...languages.map((language) => keep(SHELL_CACHE, shellKey(language), shellRequest(language))),
      keep(KEYS_CACHE, self.CHECKER.keys, new Request(self.CHECKER.keys, { cache: "no-cache" })),
    ]).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

// The person's language, as a page posted it: `{ language }`, one of `languages`.
self.addEventListener("message", (event) => {
  const language = event.data?.language;
  if (languages.includes(language)) {
    event.waitUntil(
      caches.open(SHELL_CACHE).then((kept) => kept.put(CHOSEN, new Response(language))),
    );
  }
});

// The first of the browser's languages that the portal writes in, as the portal picks it from
// Accept-Language; else the portal's own (the first).
const browsersLanguage = () => {
  const primary = (tag) => tag.toLowerCase().split("-")[0];
  for (const asked of self.navigator.languages || []) {
    const found = languages.find((language) => primary(language) === primary(asked));
    if (found) {
      return found;
    }
  }
  return languages[0];
};

const shell = async () => {
  const kept = await caches.open(SHELL_CACHE);
  const chosen = await kept.match(CHOSEN);
  const language = chosen ? await chosen.text() : browsersLanguage();
  return (await kept.match(shellKey(language))) || kept.match(shellKey(languages[0]));
};

registerRoute(
  ({ request, url }) =>
    request.mode === "navigate" &&
    url.origin === self.location.origin &&
    url.pathname.startsWith(self.CHECKER.scope),
  new NetworkOnly({
    networkTimeoutSeconds: NETWORK_SECONDS,
    plugins: [
      {
        // A portal that answers but fails (a 5xx): the shell checks the code all the same.
        fetchDidSucceed: async ({ response }) =>
          response.status >= 500 ? (await shell()) || response : response,
        handlerDidError: shell,
      },
    ],
  }),
);

registerRoute(
  ({ url }) => url.origin === self.location.origin && url.pathname === self.CHECKER.keys,
  new NetworkFirst({ cacheName: KEYS_CACHE, networkTimeoutSeconds: NETWORK_SECONDS }),
);
