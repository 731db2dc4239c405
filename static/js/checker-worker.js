// The offline checker's service worker (scope /V/), served by /V/worker.js after
// `self.CHECKER`: where Workbox is, the files it keeps (each with a digest of its content),
// the checker's page and the keys' address (portal/passports/views/checker.py).
// - It keeps the checker's files (Workbox's precaching), the checker's page as someone signed
//   out sees it (the shell), and the portal's public keys, fetched anew whenever there is
//   signal and kept with the time the portal gave them.
// - A /V/ address opened with signal goes to the portal as ever; with none (or no answer in
//   NETWORK_SECONDS, or a portal that fails), it is answered with the shell, whose script
//   checks the code on the phone.
"use strict";

importScripts(self.CHECKER.workbox);
workbox.setConfig({ modulePathPrefix: self.CHECKER.workboxModules, debug: false });

const { precacheAndRoute, cleanupOutdatedCaches } = workbox.precaching;
const { registerRoute } = workbox.routing;
const { NetworkFirst, NetworkOnly } = workbox.strategies;

const SHELL_CACHE = "checker-shell";
const KEYS_CACHE = "checker-keys";
const NETWORK_SECONDS = 8;
const shellRequest = () =>
  new Request(`${self.CHECKER.shell}?revision=${self.CHECKER.shellRevision}`, {
    credentials: "omit",
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
      keep(SHELL_CACHE, self.CHECKER.shell, shellRequest()),
      keep(KEYS_CACHE, self.CHECKER.keys, new Request(self.CHECKER.keys, { cache: "no-cache" })),
    ]).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

const shell = async () => (await caches.open(SHELL_CACHE)).match(self.CHECKER.shell);

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
