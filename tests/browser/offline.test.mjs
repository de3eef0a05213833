// PWA: the service worker precaches everything, the page works with the
// server gone, Chromium finds it installable, and a new build replaces the cache.
import test from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, screenshot, webDir } from './harness.mjs';

async function waitForController(page) {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) {
    await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 15000 });
  }
}

test('after one visit the calculator works with the server stopped', async () => {
  const server = await startServer();
  const context = await launchBrowser();
  try {
    const url = `${server.url}index.html?model=mixtral-8x7b&mode=train&checkpointing=full`;
    const page = await openCalculator(context, url);
    await waitForController(page);
    const online = await page.locator('#total').innerText();
    const cached = await page.evaluate(async () => {
      const keys = await caches.keys();
      const cache = await caches.open(keys.find((k) => k.startsWith('vramcalc-')));
      return (await cache.keys()).map((r) => new URL(r.url).pathname);
    });
    for (const file of ['/index.html', '/vramcalc.wasm', '/vramcalc.js', '/models.json', '/app.js', '/widget.js']) {
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
  }
});

test('a new build gets a new cache version and the old cache is dropped', async () => {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'vramcalc-web-'));
  await cp(webDir, copy, { recursive: true });
  const server = await startServer(copy);
  const context = await launchBrowser();
  try {
    const page = await openCalculator(context, server.url);
    await waitForController(page);
    const before = await page.evaluate(() => caches.keys());
    assert.equal(before.length, 1);
    // What scripts/build.sh does when any file changes: a new VERSION in sw.js.
    const sw = path.join(copy, 'sw.js');
    await writeFile(sw, (await readFile(sw, 'utf8')).replace(/const VERSION = '[^']*'/, "const VERSION = 'next-build'"));
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await page.waitForFunction(async () => {
      const keys = await caches.keys();
      return keys.length === 1 && keys[0] === 'vramcalc-next-build';
    }, null, { timeout: 15000 });
    assert.notEqual(before[0], 'vramcalc-next-build');
  } finally {
    await context.close();
    await server.close();
  }
});
