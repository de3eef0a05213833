// PWA: the service worker precaches everything, the page works with the
// server gone, Chromium finds it installable; a new build replaces the cache
// only once it is complete and verified; deployments under different paths
// keep their own caches. Hosts that redirect or answer badly: sw-hosts.test.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, screenshot, webDir } from './harness.mjs';
import { waitForController, cacheKeys, waitForKeys, newVersion } from './sw-helpers.mjs';

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
      '/state.js', '/panels/charts.js', '/core-worker.js', '/core-api.mjs', '/core-client.js']) {
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
    // a model and query never visited before also works offline, as an older ?query link or a fragment link
    const fresh = await openCalculator(context, `${server.url}index.html?model=gemma-2-9b&dtype=q4_k_m`);
    assert.match(await fresh.locator('#model-info').innerText(), /Gemma 2 9B: 9\.24 B parameters/);
    await screenshot(fresh, 'offline');
    const fragment = await fresh.evaluate(async () => (await import('./link.js')).encodeState(new URLSearchParams({ model: 'qwen2.5-7b' })));
    const linked = await openCalculator(context, `${server.url}index.html#${fragment}`);
    assert.match(await linked.locator('#model-info').innerText(), /^Qwen2\.5 7B/);
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
    const next = await newVersion(path.join(root, 'b'), 'b-next');
    await b.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await waitForKeys(b, (k) => k.includes(`vramcalc:/b/:${next}`) && k.length === 2);
    assert.ok((await cacheKeys(b)).includes(keys[0]), "a's cache survives b's update");
  } finally {
    await context.close();
    await server.close();
  }
});
