// Service worker: precaches the calculator so it works offline after one
// visit. scripts/build.sh writes sw.js from this template with VERSION set to
// a hash of the built files, so every new build gets a new cache.
//
// Safe updates: every file is fetched past the HTTP cache (cache: 'reload'),
// checked (status, content type; the wasm's magic number; JSON parses) and
// written into a NEW cache; only a complete, checked cache replaces the old
// one, which stays in use until then. Cache names carry the deployment path,
// so two copies of the calculator on one origin never delete each other's.
const VERSION = '__VERSION__';
const SCOPE = new URL(self.registration.scope).pathname;
const PREFIX = `vramcalc:${SCOPE}:`;
const CACHE = `${PREFIX}${VERSION}`;
const FILES = [
  './', 'index.html', 'style.css', 'parts.css', 'widget.css', 'demo.css', 'app.js', 'state.js', 'embed.js', 'render.js',
  'vramcalc-client.js', 'core-api.mjs', 'widget.js', 'panels/job.js', 'panels/model.js', 'panels/checkpoint.js', 'panels/results.js',
  'panels/charts.js', 'panels/compare.js', 'panels/export.js', 'panels/fits.js', 'panels/actions.js', 'panels/cluster.js', 'panels/cluster.css',
  'vramcalc.js', 'vramcalc.wasm', 'models.json', 'manifest.webmanifest', 'embed-demo.html', 'embed-host.js',
  'icons/icon.svg', 'icons/icon-192.png', 'icons/icon-512.png',
];
// Cached when the deployment has them (panels added by later builds).
const OPTIONAL = [];

const expectedType = (path) => {
  if (path.endsWith('.wasm')) return 'application/wasm';
  if (path.endsWith('.json') || path.endsWith('.webmanifest')) return 'json';
  if (path.endsWith('.js') || path.endsWith('.mjs')) return 'javascript';
  if (path.endsWith('.css')) return 'text/css';
  if (path.endsWith('.svg')) return 'image/svg+xml';
  if (path.endsWith('.png')) return 'image/png';
  return 'text/html';
};

// SHA-256 of the core as built (scripts/build.sh writes them in): a truncated
// wasm, or a loader and a wasm from two different builds, are never cached.
const HASHES = { 'vramcalc.wasm': '__SHA_WASM__', 'vramcalc.js': '__SHA_JS__' };

async function sha256(response) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await response.clone().arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

// Throws unless `response` really is the file asked for (not an error page
// answered with 200, not a truncated or mismatched core).
async function verified(path, response) {
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const type = response.headers.get('content-type') || '';
  if (!type.includes(expectedType(path))) throw new Error(`${path}: content-type ${type}`);
  if (path.endsWith('.wasm')) {
    const head = new Uint8Array(await response.clone().arrayBuffer(), 0, 4);
    if (!(head[0] === 0 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d)) throw new Error(`${path}: not WebAssembly`);
  }
  if (expectedType(path) === 'json') JSON.parse(await response.clone().text());
  if (HASHES[path] && (await sha256(response)) !== HASHES[path]) throw new Error(`${path}: not the build this worker belongs to`);
  return response;
}

async function precache() {
  const fetched = [];
  for (const path of [...FILES, ...OPTIONAL]) {
    const response = await fetch(new Request(path, { cache: 'reload' }));
    if (OPTIONAL.includes(path) && response.status === 404) continue;
    fetched.push([path, await verified(path, response)]);
  }
  // All fetched and checked: only now is the new cache written.
  const cache = await caches.open(CACHE);
  try {
    for (const [path, response] of fetched) await cache.put(path, response);
  } catch (e) {
    await caches.delete(CACHE);
    throw e;
  }
}

self.addEventListener('install', (event) => {
  // A failed install leaves the previous worker and its cache in charge.
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// Own files: cache first (ignoring the query string that carries page state).
// Anything else, such as Hub config fetches, goes to the network untouched.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith(SCOPE)) return;
  event.respondWith(caches.open(CACHE).then(async (cache) => {
    const hit = await cache.match(event.request, { ignoreSearch: true });
    return hit || fetch(event.request);
  }));
});
