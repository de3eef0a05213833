// The service worker on real hosts (issue 25): a host that redirects
// /index.html to /, and hosts that answer badly during an update (an error
// page with 200, a valid-JSON error body, a file of another deploy, a
// redirect, a 500). Nothing bad is ever cached: the page keeps working on the
// old cache, and heals once the server is fixed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, webDir } from './harness.mjs';
import { waitForController, cacheKeys, waitForKeys, newVersion, copyOfWeb, tryUpdate, settleInstalls } from './sw-helpers.mjs';

const cachedRedirects = (page) => page.evaluate(async () => {
  const found = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) if ((await cache.match(request)).redirected) found.push(request.url);
  }
  return found;
});

test('a broken deploy is never cached: the old cache keeps the page working, and a fixed server heals it', async () => {
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
    const otherDeploy = `${await readFile(path.join(webDir, 'panels', 'charts.js'), 'utf8')}\n// another deploy\n`;
    const cases = {
      'an HTML error page as the wasm': { '/vramcalc.wasm': { type: 'application/wasm', body: '<!doctype html><p>502 Bad Gateway' } },
      'the wasm with the wrong type': { '/vramcalc.wasm': { type: 'text/html', body: '<p>oops' } },
      'truncated JSON': { '/models.json': { type: 'application/json', body: '{"models": [' } },
      'a valid-JSON error body for models.json': { '/models.json': { type: 'application/json', body: '{"error": "Not Found", "status": 404}' } },
      'a panels/*.js from another deploy': { '/panels/charts.js': { type: 'text/javascript', body: otherDeploy } },
      'a 302': { '/models.json': { status: 302, headers: { location: '/manifest.webmanifest' } } },
      'a 500': { '/vramcalc.js': { status: 500, body: 'Internal Server Error' } },
      'a 301 for a script': { '/core-worker.js': { status: 301, headers: { location: '/core-api.mjs' } } },
    };
    let n = 0;
    for (const [what, files] of Object.entries(cases)) {
      broken = files;
      await newVersion(copy, `broken-${++n}`);
      assert.equal(await tryUpdate(page), 'redundant', what);
      assert.deepEqual(await cacheKeys(page), good, what);
      // the bad answer is still being served, yet the page works from the old cache
      await page.reload();
      await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
      assert.equal(await page.locator('#total').innerText(), total, what);
      await settleInstalls(page);  // the reload's retry of this broken build fails here, under this case's breakage
      assert.deepEqual(await cacheKeys(page), good, what);
    }
    assert.deepEqual(await cachedRedirects(page), []);
    // The server is fixed: the next update caches the new build, every file fetched past the HTTP cache, and
    // the page runs it (its app.js carries the build's tag).
    broken = null;
    log.length = 0;
    const fixed = await newVersion(copy, 'fixed');
    assert.equal(await tryUpdate(page), 'activated');
    await waitForKeys(page, (keys) => keys.length === 1 && keys[0] === `vramcalc:/:${fixed}`);
    for (const file of ['/app.js', '/vramcalc.js', '/vramcalc.wasm', '/panels/charts.js', '/models.json']) {
      const request = log.find((r) => r.path === file);
      assert.ok(request, `${file} fetched again on install`);
      assert.match(request.headers['cache-control'] ?? request.headers.pragma ?? '', /no-cache/);
    }
    await server.close();  // from the cache alone
    await page.reload();
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    assert.equal(await page.locator('#total').innerText(), total);
    assert.match(await page.evaluate(async () => (await fetch('app.js')).text()), /\/\/ build: fixed\n$/);
  } finally {
    await context.close();
    await server.close();
  }
});

test('a host that redirects /index.html to /: the redirect is never cached; index.html links work online and offline', async () => {
  const copy = await copyOfWeb();
  // As static hosts with "pretty URLs" do: /index.html answers 301 to /, keeping the query.
  const server = await startServer(copy, { override: (p, url) => (p === '/index.html'
    ? { status: 301, headers: { location: `/${url.search}` } } : undefined) });
  const context = await launchBrowser();
  try {
    const first = await openCalculator(context, `${server.url}index.html?model=mixtral-8x7b`);
    assert.match(await first.locator('#model-info').innerText(), /^Mixtral 8x7B/);
    await waitForController(first);
    const [name] = await cacheKeys(first);
    const cached = await first.evaluate(async (n) => {
      const hit = await (await caches.open(n)).match('index.html');
      return hit && { redirected: hit.redirected, status: hit.status, html: (await hit.text()).startsWith('<!doctype html>') };
    }, name);
    assert.deepEqual(cached, { redirected: false, status: 200, html: true });
    assert.deepEqual(await cachedRedirects(first), []);
    // The links the widget's "Open in vramcalc" and the Embed iframe use, online: the host's redirect is followed.
    const fragment = await first.evaluate(async () => (await import('./link.js')).encodeState(new URLSearchParams({ model: 'gemma-2-9b' })));
    const addresses = [['index.html?model=qwen2.5-7b', /^Qwen2\.5 7B/], [`index.html#${fragment}`, /^Gemma 2 9B/],
      [`index.html?embed=1#${fragment}`, /^Gemma 2 9B/]];
    for (const [address, name] of addresses) {
      const page = await openCalculator(context, `${server.url}${address}`);
      assert.match(await page.locator('#model-info').innerText(), name, `online: ${address}`);
      assert.deepEqual(page.jsErrors, [], address);
      await page.close();
    }
    // Offline: the same addresses, from the cached page.
    await server.close();
    for (const [address, name] of addresses) {
      const page = await openCalculator(context, `${server.url}${address}`);
      assert.match(await page.locator('#model-info').innerText(), name, `offline: ${address}`);
      await page.close();
    }
  } finally {
    await context.close();
    await server.close();
  }
});
