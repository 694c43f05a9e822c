// The page as an installed app: its shell (the HTML, the scripts, the style, the manifest and
// the icon) is kept here, so that it opens with no network and can record into IndexedDB;
// record.js sends what it kept once the server answers. Everything else (/api/, /audio/) goes
// to the server alone: the library is the server's, never a stale copy of it.
"use strict";

const shell = "recnotes-shell-v1";
const files = ["/", "/page/page.js", "/page/record.js", "/page/capture.js", "/page/page.css",
  "/manifest.webmanifest", "/page/icon.svg"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(shell).then((cache) => cache.addAll(files)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== shell).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

// The server first, so that a newer server's page is the one shown; the kept copy when it
// does not answer. Any page's URL is the one shell.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin) return;
  const page = event.request.mode === "navigate";
  if (!page && !files.includes(url.pathname)) return;
  const key = page ? "/" : url.pathname;
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(shell).then((cache) => cache.put(key, copy));
    }
    return response;
  }).catch(() => caches.open(shell).then((cache) => cache.match(key)).then((kept) => kept || Response.error())));
});
