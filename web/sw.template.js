// Service worker: precaches the calculator so it works offline after one
// visit. scripts/build.sh writes sw.js from this template with VERSION set to
// a hash of the built files, so every new build gets a new cache and the
// browser installs it on the next visit.
const VERSION = '__VERSION__';
const CACHE = `vramcalc-${VERSION}`;
const FILES = [
  './', 'index.html', 'style.css', 'parts.css', 'app.js', 'render.js', 'vramcalc-client.js', 'core-api.mjs', 'widget.js',
  'vramcalc.js', 'vramcalc.wasm', 'models.json', 'manifest.webmanifest', 'embed-demo.html',
  'icons/icon.svg', 'icons/icon-192.png', 'icons/icon-512.png',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('vramcalc-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// Own files: cache first (ignoring the query string that carries page state).
// Anything else, such as Hub config fetches, goes to the network untouched.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith(caches.open(CACHE).then(async (cache) => {
    const hit = await cache.match(event.request, { ignoreSearch: true });
    return hit || fetch(event.request);
  }));
});
