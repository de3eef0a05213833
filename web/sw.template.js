// Service worker: precaches the calculator so it works offline after one
// visit. scripts/make_sw.mjs (run by scripts/build.sh) writes sw.js from this
// template with FILES, every file of the build and its SHA-256, and VERSION, a
// hash of them all, so every new build gets a new cache.
//
// - Install fetches every file past the HTTP cache (cache: 'reload') and keeps
//   it only if the answer is the very file of this build: not opaque, not
//   redirected, HTTP 2xx, the expected content type, and its SHA-256 equal to
//   FILES'. Only when every file has passed is the new cache written; until the
//   new worker activates, the old worker and its cache stay in charge, so an
//   error page, a file of another deploy or a redirect is never cached, and a
//   broken deploy leaves the last good one working.
// - The page (index.html) may be fetched as ./ when a host redirects
//   /index.html to / (the redirect itself is never stored).
// - Navigations ask the network first and take its answer when it is this
//   build's page (same hash): a server fixed after an outage serves the page
//   again at once. A host's redirect goes to the browser as it came. Offline,
//   on an error or on another build's page, the cached page answers (a page of
//   a newer deploy waits until its worker has cached that build whole, so two
//   builds' files never mix).
// - Every other file of the build: cache first (each was verified when
//   stored), the network when missing. Anything else (Hub fetches, other
//   paths) goes to the network untouched.
// - Cache names carry the deployment path, so two copies of the calculator on
//   one origin never delete each other's.
const VERSION = '__VERSION__';
const FILES = __FILES__;
// Demo pages, not the calculator: left out (not cached) when their answer does not verify, so a host that
// redirects *.html to pretty URLs still gets an offline calculator.
const OPTIONAL = new Set(['embed-demo.html', 'demo.css']);
const PAGE = 'index.html';
const NAVIGATION_TIMEOUT_MS = 4000;  // a network that does not answer (lie-fi): the cached page instead
const SCOPE = new URL(self.registration.scope).pathname;
const PREFIX = `vramcalc:${SCOPE}:`;
const CACHE = `${PREFIX}${VERSION}`;

const expectedType = (path) => {
  if (path.endsWith('.wasm')) return 'application/wasm';
  if (path.endsWith('.json') || path.endsWith('.webmanifest')) return 'json';
  if (path.endsWith('.js') || path.endsWith('.mjs')) return 'javascript';
  if (path.endsWith('.css')) return 'text/css';
  if (path.endsWith('.svg')) return 'image/svg+xml';
  if (path.endsWith('.png')) return 'image/png';
  return 'text/html';
};

async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

// The answer's bytes as a new Response if it is `path` of this build; throws why not.
async function verified(path, response) {
  if (response.type === 'opaque' || response.type === 'opaqueredirect') throw new Error(`${path}: an opaque answer`);
  if (response.redirected) throw new Error(`${path}: redirected to ${response.url}`);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const type = response.headers.get('content-type') || '';
  if (!type.includes(expectedType(path))) throw new Error(`${path}: content-type ${type}`);
  const bytes = await response.arrayBuffer();
  if ((await sha256(bytes)) !== FILES[path]) throw new Error(`${path}: not this build's file (another deploy, an error page, or cut short)`);
  return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const fetchVerified = async (url, path) => verified(path, await fetch(new Request(url, { cache: 'reload' })));

async function precache() {
  const copies = await Promise.all(Object.keys(FILES).map(async (path) => {
    try {
      // A host that redirects /index.html to / serves the page at ./ (checked against index.html's hash).
      return [path, await (path === PAGE ? fetchVerified(PAGE, PAGE).catch(() => fetchVerified('./', PAGE)) : fetchVerified(path, path))];
    } catch (e) {
      if (OPTIONAL.has(path)) return null;
      throw e;
    }
  }));
  // All fetched and verified: only now is the new cache written.
  await caches.delete(CACHE);  // a partial write of this version, if an earlier attempt failed
  const cache = await caches.open(CACHE);
  try {
    for (const entry of copies) if (entry) await cache.put(entry[0], entry[1]);
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

const fromCache = async (path) => (await caches.open(CACHE)).match(path);

async function navigation(request, path) {
  let answer = null;
  let timer = 0;
  try {
    answer = await Promise.race([fetch(request),
      new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error('no answer in time')), NAVIGATION_TIMEOUT_MS); })]);
    if (answer.type === 'opaqueredirect') return answer;  // the host's redirect: the browser follows it
    if (answer.ok && !answer.redirected) return await verified(path, answer.clone());
  } catch { /* offline, no answer in time, or not this build's page */ } finally {
    clearTimeout(timer);
  }
  return (await fromCache(path)) ?? answer ?? Response.error();
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith(SCOPE)) return;
  const file = url.pathname.slice(SCOPE.length);
  // The calculator at ./ or index.html, whatever its query (older links kept their state there).
  const path = file === '' ? PAGE : file;
  if (!Object.hasOwn(FILES, path)) return;  // own keys only: `constructor` or `__proto__` is no file of the build
  if (request.mode === 'navigate') event.respondWith(navigation(request, path));
  else event.respondWith(fromCache(path).then((hit) => hit ?? fetch(request)));
});
