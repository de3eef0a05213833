// Shared by the service-worker tests: waiting for the worker and its caches,
// and making new deploys of a copy of web/ (as scripts/build.sh would).
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { webDir } from './harness.mjs';
import { makeServiceWorker } from '../../scripts/make_sw.mjs';

export async function waitForController(page) {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) {
    await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 15000 });
  }
}

export const cacheKeys = (page) => page.evaluate(() => caches.keys());

// Polls the cache names until `ok(keys)` (page.waitForFunction would take an
// async predicate's promise as truthy at once).
export async function waitForKeys(page, ok, timeout = 15000) {
  const end = Date.now() + timeout;
  for (;;) {
    const keys = await cacheKeys(page);
    if (ok(keys)) return keys;
    if (Date.now() > end) throw new Error(`caches never settled: ${keys.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A new build in `dir`: app.js changes (a comment naming `tag`), and sw.js is
// written again with every file's hash, as scripts/build.sh does. Returns the
// new cache name's version.
export async function newVersion(dir, tag) {
  const app = path.join(dir, 'app.js');
  await writeFile(app, `${(await readFile(app, 'utf8')).replace(/\n\/\/ build: .*\n$/, '\n')}\n// build: ${tag}\n`);
  return makeServiceWorker(dir).version;
}

export async function copyOfWeb() {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'vramcalc-web-'));
  await cp(webDir, copy, { recursive: true });
  makeServiceWorker(copy);
  return copy;
}

// Waits until no new worker has been installing for `quiet` ms. A navigation retries an install that failed: the
// retry must end under the breakage of its own case, not run on into the next case's, when the file it failed on is
// served right again (a race seen under load in sw-hosts: the older build then installed).
export async function settleInstalls(page, quiet = 500, timeout = 15000) {
  const end = Date.now() + timeout;
  let since = Date.now();
  for (;;) {
    const installing = await page.evaluate(async () => !!(await navigator.serviceWorker.getRegistration())?.installing);
    if (installing) since = Date.now();
    else if (Date.now() - since >= quiet) return;
    if (Date.now() > end) throw new Error('a service worker was still installing after 15 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Asks the registration to update; resolves to the new worker's fate:
// 'redundant' (its install failed), 'activated', or 'no install'.
export function tryUpdate(page) {
  return page.evaluate(async () => {
    const reg = await navigator.serviceWorker.getRegistration();
    await reg.update().catch(() => {});
    const worker = reg.installing;
    if (!worker) return 'no install';
    return new Promise((resolve) => worker.addEventListener('statechange', () => {
      if (worker.state === 'redundant' || worker.state === 'activated') resolve(worker.state);
    }));
  });
}
