// PWA: the service worker precaches everything, the page works with the
// server gone, Chromium finds it installable; a new build replaces the cache
// only once it is complete and verified; deployments under different paths
// keep their own caches.
import test from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, screenshot, webDir } from './harness.mjs';

async function waitForController(page) {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) {
    await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 15000 });
  }
}
const cacheKeys = (page) => page.evaluate(() => caches.keys());
// Polls the cache names until `ok(keys)` (page.waitForFunction would take an
// async predicate's promise as truthy at once).
async function waitForKeys(page, ok, timeout = 15000) {
  const end = Date.now() + timeout;
  for (;;) {
    const keys = await cacheKeys(page);
    if (ok(keys)) return keys;
    if (Date.now() > end) throw new Error(`caches never settled: ${keys.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// What scripts/build.sh does when any file changes: a new VERSION in sw.js.
async function newVersion(dir, version) {
  const sw = path.join(dir, 'sw.js');
  await writeFile(sw, (await readFile(sw, 'utf8')).replace(/const VERSION = '[^']*'/, `const VERSION = '${version}'`));
}

async function copyOfWeb() {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'vramcalc-web-'));
  await cp(webDir, copy, { recursive: true });
  return copy;
}

test('after one visit the calculator works with the server stopped', async () => {
  const server = await startServer();
  const context = await launchBrowser();
  try {
    const url = `${server.url}index.html?model=mixtral-8x7b&mode=train&checkpointing=full`;
    const page = await openCalculator(context, url);
    await waitForController(page);
    const online = await page.locator('#total').innerText();
    const keys = await cacheKeys(page);
    assert.deepEqual(keys.map((k) => k.replace(/[^:]*$/, '')), ['vramcalc:/:']);  // named after the deployment path
    const cached = await page.evaluate(async (name) => (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname), keys[0]);
    for (const file of ['/index.html', '/vramcalc.wasm', '/vramcalc.js', '/models.json', '/app.js', '/widget.js', '/widget.css',
      '/state.js', '/panels/charts.js']) {
      assert.ok(cached.includes(file), `${file} precached`);
    }
    // Installable: Chromium reports no installability errors for the manifest + worker.
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);

    await server.close();
    await page.reload();
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    assert.equal(await page.locator('#total').innerText(), online);
    await page.selectOption('#mode', 'inference');
    assert.match(await page.locator('#total').innerText(), /^\d+\.\d\d GB$/);
    // a model and query never visited before also works offline
    const fresh = await openCalculator(context, `${server.url}index.html?model=gemma-2-9b&dtype=q4_k_m`);
    assert.match(await fresh.locator('#model-info').innerText(), /Gemma 2 9B: 9\.24 B parameters/);
    await screenshot(fresh, 'offline');
  } finally {
    await context.close();
    await server.close();
  }
});

test('a broken deploy keeps the old cache working; a good one, fetched past the HTTP cache, replaces it', async () => {
  const copy = await copyOfWeb();
  let broken = null;
  const log = [];
  const server = await startServer(copy, { override: (p) => broken?.[p], log });
  const context = await launchBrowser();
  try {
    const page = await openCalculator(context, `${server.url}index.html?model=qwen2.5-7b`);
    await waitForController(page);
    const good = await cacheKeys(page);
    assert.equal(good.length, 1);
    const total = await page.locator('#total').innerText();
    // An HTML error page answered with 200 (as wasm, or as HTML), or truncated JSON: the new worker is refused.
    for (const [version, files] of [
      ['html-for-wasm', { '/vramcalc.wasm': { status: 200, type: 'application/wasm', body: '<!doctype html><p>502 Bad Gateway' } }],
      ['wrong-type', { '/vramcalc.wasm': { status: 200, type: 'text/html', body: '<p>oops' } }],
      ['bad-json', { '/models.json': { status: 200, type: 'application/json', body: '{"models": [' } }],
    ]) {
      broken = files;
      await newVersion(copy, version);
      const outcome = await page.evaluate(async () => {
        const reg = await navigator.serviceWorker.getRegistration();
        await reg.update().catch(() => {});
        const worker = reg.installing;
        if (!worker) return 'no install';
        return new Promise((resolve) => worker.addEventListener('statechange', () => {
          if (worker.state === 'redundant' || worker.state === 'installed' || worker.state === 'activated') resolve(worker.state);
        }));
      });
      assert.equal(outcome, 'redundant', version);
      assert.deepEqual(await cacheKeys(page), good, version);
    }
    // the broken files are still being served, yet the page works from the old cache
    await page.reload();
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    assert.equal(await page.locator('#total').innerText(), total);
    // A good build: every file fetched again with no-cache (cache: 'reload'), then the old cache goes.
    broken = null;
    log.length = 0;
    await newVersion(copy, 'next-build');
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await waitForKeys(page, (keys) => keys.length === 1 && keys[0] === 'vramcalc:/:next-build');
    for (const file of ['/app.js', '/vramcalc.js', '/vramcalc.wasm']) {
      const request = log.find((r) => r.path === file);
      assert.ok(request, `${file} fetched again on install`);
      assert.match(request.headers['cache-control'] ?? request.headers.pragma ?? '', /no-cache/);
    }
  } finally {
    await context.close();
    await server.close();
  }
});

test('two deployments under different paths keep each other\'s caches', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'vramcalc-two-'));
  for (const dir of ['a', 'b']) {
    await mkdir(path.join(root, dir));
    await cp(webDir, path.join(root, dir), { recursive: true });
  }
  const server = await startServer(root);
  const context = await launchBrowser();
  try {
    const a = await openCalculator(context, `${server.url}a/index.html`);
    await waitForController(a);
    const b = await openCalculator(context, `${server.url}b/index.html`);
    await waitForController(b);
    const keys = (await waitForKeys(b, (k) => k.length === 2)).sort();
    assert.deepEqual(keys.map((k) => k.replace(/[^:]*$/, '')), ['vramcalc:/a/:', 'vramcalc:/b/:']);
    await newVersion(path.join(root, 'b'), 'b-next');
    await b.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await waitForKeys(b, (k) => k.includes('vramcalc:/b/:b-next') && k.length === 2);
    assert.ok((await cacheKeys(b)).includes(keys[0]), "a's cache survives b's update");
  } finally {
    await context.close();
    await server.close();
  }
});
