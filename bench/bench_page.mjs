// Page benchmark (not a test): the budgets of issue 11, measured.
//   - a 256-point sweep in wasm (one core call), and per point: the
//     numbers-only estimate (compute_breakdown without texts) inside it;
//   - cold load to first result on localhost (fresh browser profile);
//   - input to its new total painted over 50 rapid changes with the charts on (p50, p95),
//     and the input handler's own time on the main thread;
//   - the whole page's size, gzip;
//   - issue 23's speed figures on a throttled profile (CDP: 4× CPU slowdown on the page, 1.6 Mbps down /
//     750 kbps up / 150 ms RTT, files served gzip as a host would): "first number painted" (the total on
//     screen, baked into index.html or drawn by the core) and "first core number" (the core's first
//     result), cold; a repeat visit answered by the service worker; the machine's load around each.
// usage: node bench/bench_page.mjs   (needs the wasm build in web/ and Chromium)
//        BENCH_RUNS=n (default 5) runs per throttled figure; VRAMCALC_BENCH_THROTTLED_ONLY=1 skips the rest,
//        VRAMCALC_BENCH_INPUT_ONLY=1 measures input to paint alone.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { loadVramcalc, repo } from '../tests/wasm/load_wasm.mjs';
import { startServer, launchBrowser, pagePolicy } from '../tests/browser/harness.mjs';

// VRAMCALC_WEB: another copy of web/ to measure (e.g. an older page with the same wasm), for before/after figures.
const web = process.env.VRAMCALC_WEB ? path.resolve(process.env.VRAMCALC_WEB) : path.join(repo, 'web');
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (x, d = 2) => x.toFixed(d);

// ---------------------------------------------------------------- wasm under Node
// VRAMCALC_BENCH_PAGE_ONLY=1: the browser figures only (for A/B runs of two pages with one wasm).
async function wasmFigures() {
  const vc = await loadVramcalc();
  const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models;
  const llama = JSON.stringify(models.find((m) => m.id === 'llama-3-8b').config);
  vc.useConfig(llama);
  const values = JSON.stringify(Array.from({ length: 256 }, (_, i) => 16 * (i + 1)));
  const jobs = { inference: '{}', training: '{"mode":"train","checkpointing":"full"}', qlora: '{"mode":"qlora"}' };
  const sweepRows = [];
  for (const [name, job] of Object.entries(jobs)) {
    if (!JSON.parse(vc.sweep(job, 'seq', values)).ok) throw new Error(`sweep refused for ${name}`);
    // The page's call: sweepView (a header and a Float64Array view into wasm memory).
    const decoder = new TextDecoder();
    const rounds = 400;
    let best = Infinity;
    const times = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      const v = vc.sweepView(job, 'seq', values);
      decoder.decode(v.header);
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      times.push(us);
      best = Math.min(best, us);
    }
    // A one-point sweep: the fixed cost of the call (Embind strings, JSON in and out).
    let one = Infinity;
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      decoder.decode(vc.sweepView(job, 'seq', '[4096]').header);
      one = Math.min(one, Number(process.hrtime.bigint() - t0) / 1000);
    }
    sweepRows.push({ name, median: pct(times, 50), best, perPoint: (best - one) / 255 });
  }
  // What the page's chart gets: coreApi.sweep, the points built from the numbers view.
  const { coreApi } = await import('../web/core-api.mjs');
  const api = coreApi(vc);
  const parsedValues = JSON.parse(values);
  let sweepParse = Infinity;
  for (let r = 0; r < 200; r++) {
    const t0 = process.hrtime.bigint();
    api.sweep(llama, {}, 'seq', parsedValues);
    sweepParse = Math.min(sweepParse, Number(process.hrtime.bigint() - t0) / 1000);
  }
  return { sweepRows, sweepParse };
}
const throttledOnly = Boolean(process.env.VRAMCALC_BENCH_THROTTLED_ONLY);
const inputOnly = Boolean(process.env.VRAMCALC_BENCH_INPUT_ONLY);
const wasm = process.env.VRAMCALC_BENCH_PAGE_ONLY || throttledOnly || inputOnly ? null : await wasmFigures();

// ---------------------------------------------------------------- browser
async function browserFigures() {
const server = await startServer(web);
const cold = [];
for (let i = 0; i < (inputOnly ? 0 : 5); i++) {
  const context = await launchBrowser();  // fresh profile: no HTTP cache, no service worker
  const page = await context.newPage();
  await page.goto(`${server.url}index.html`);
  await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
  cold.push(await page.evaluate(() => performance.getEntriesByName('vramcalc:first-result')[0].startTime));
  await context.close();
}

const context = await launchBrowser();
const page = await context.newPage();
await page.goto(`${server.url}index.html?model=llama-3-8b&mode=train`);
await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
// The core on the page's thread answers the totals once it has started (core-local.js): wait for it.
await page.waitForFunction(async () => {
  const client = await import('./vramcalc-client.js');
  return client.startLocalCore ? client.startLocalCore().then(() => true) : true;  // an older page has none
}, null, { timeout: 30000 });
const paint = await page.evaluate(async () => {
  // Input to the frame that shows its new total: the total is watched (a MutationObserver);
  // the frame callback registered when it changes marks the start of the frame that paints it,
  // and a message posted there runs right after that frame's paint. "handler": the input
  // event's own synchronous time on the main thread. Each input comes once the previous one's
  // total is on screen, after a pause drawn at random within one 60 Hz frame (a seeded
  // sequence): keystrokes land at any point between two frames, not right after a paint.
  // "frames": frames begun between the input and the one that paints it (1: the very next).
  const input = document.getElementById('batch');
  const total = document.getElementById('total');
  let frames = 0;
  let ticking = true;
  const tick = () => { frames++; if (ticking) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const rows = [];
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, random() * 16.7));
    let atInput = 0;
    const shown = new Promise((resolve) => {
      const watch = new MutationObserver(() => {
        watch.disconnect();
        requestAnimationFrame(() => {
          const frameStart = performance.now();
          const frame = frames - atInput;  // the ticker (registered first) has counted this frame already
          const ch = new MessageChannel();
          ch.port1.onmessage = () => resolve({ frameStart, painted: performance.now(), frame });
          ch.port2.postMessage(0);
        });
      });
      watch.observe(total, { childList: true, characterData: true, subtree: true });
    });
    atInput = frames;
    const t0 = performance.now();
    input.value = String((i % 16) + 1);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const sync = performance.now() - t0;
    const { frameStart, painted, frame } = await shown;
    if (i >= 10) rows.push({ sync, toFrame: frameStart - t0, toPaint: painted - t0, frame });  // the first 10 warm up
  }
  ticking = false;
  return { toPaint: rows.map((r) => r.toPaint), toFrame: rows.map((r) => r.toFrame), sync: rows.map((r) => r.sync),
    frames: rows.map((r) => r.frame), charts: document.querySelectorAll('#chart-seq polygon, #chart-batch polygon').length };
});
await context.close();
await server.close();
return { cold, paint };
}


// ---------------------------------------------------------------- issue 23: the throttled profile
// Files served gzip-compressed (as static hosts and CDNs do), the page's CSP on HTML.
const mime = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.webmanifest': 'application/manifest+json',
  '.png': 'image/png' };
const gzipped = new Map();
// The header a host sends: the page's own policy, as its <meta> states it (docs/page.md).
function pageCsp() {
  const policy = pagePolicy(readFileSync(path.join(web, 'index.html'), 'utf8'));
  if (!policy) throw new Error('index.html has no Content-Security-Policy <meta>');
  return policy;
}
function gzipServer() {
  return startServer(web, {
    override(pathname) {
      const file = path.join(web, pathname.endsWith('/') ? `${pathname}index.html` : decodeURIComponent(pathname));
      if (!file.startsWith(web) || !existsSync(file)) return undefined;
      if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(file), { level: 9 }));
      const type = mime[path.extname(file)] ?? 'application/octet-stream';
      const headers = { 'content-encoding': 'gzip', vary: 'accept-encoding' };
      if (type === 'text/html') headers['content-security-policy'] = pageCsp();
      return { status: 200, type, body: gzipped.get(file), headers };
    },
  });
}
// Lighthouse's mobile profile ("slow 4G"): 150 ms RTT, 1.6 Mbps down, 750 kbps up, 4× CPU.
const PROFILE = { latency: 150, downloadThroughput: (1.6e6 / 8), uploadThroughput: (750e3 / 8), cpu: 4 };
// Before any page script: when a number first shows in a card's total (parsed from the HTML or written by
// the page), the next frame's paint is taken as its time; `from`: 'html' when it came with the HTML (baked
// by scripts/bake.mjs). Baked figures count only while first-view.js lets them show (the default view).
function watchFirstNumber() {
  window.__firstNumber = null;
  const shown = (el) => !(el.hasAttribute('data-baked') && document.documentElement.dataset.firstView === 'other');
  const seen = () => [...document.querySelectorAll('#summary [data-total]')].some((el) => shown(el) && /\d/.test(el.textContent));
  const observer = new MutationObserver(() => {
    if (!seen()) return;
    observer.disconnect();
    const from = document.readyState === 'loading' ? 'html' : 'page';  // parsed from the HTML, or written by a script
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => { window.__firstNumber = { t: performance.now(), from }; };
      ch.port2.postMessage(0);
    });
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
}
async function visit(context, url, throttle) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  if (throttle) {
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: PROFILE.latency,
      downloadThroughput: PROFILE.downloadThroughput, uploadThroughput: PROFILE.uploadThroughput });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: PROFILE.cpu });
  }
  await page.addInitScript(watchFirstNumber);
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 60000 });
  await page.waitForFunction(() => window.__firstNumber, null, { timeout: 60000 });
  const figures = await page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
    return {
      // Nothing is on screen before the first contentful paint: a number parsed with the HTML counts from then.
      number: Math.max(window.__firstNumber.t, fcp ?? 0), from: window.__firstNumber.from,
      core: performance.getEntriesByName('vramcalc:first-result')[0].startTime,
      fcp,
      controlled: Boolean(navigator.serviceWorker?.controller),
    };
  });
  return { page, figures };
}
async function throttledFigures(runs) {
  const server = await gzipServer();
  const rows = { cold: [], repeat: [], repeatFast: [] };
  const load = [];
  for (let i = 0; i < runs; i++) {
    // The previous run's browser (its worker compiling, its processes exiting) is given 3 s to be gone:
    // on 2 cores a run otherwise measures the one before it as much as itself.
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 3000));
    load.push(os.loadavg()[0]);
    const context = await launchBrowser();  // fresh profile: no HTTP cache, no service worker
    const first = await visit(context, `${server.url}index.html`, true);
    rows.cold.push(first.figures);
    // The service worker takes over once installed (every file of the build precached and verified).
    await first.page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    });
    await first.page.close();
    const again = await visit(context, `${server.url}index.html`, true);
    rows.repeat.push(again.figures);
    await again.page.close();
    const fast = await visit(context, `${server.url}index.html`, false);
    rows.repeatFast.push(fast.figures);
    await fast.page.close();
    await context.close();
  }
  load.push(os.loadavg()[0]);
  await server.close();
  return { rows, load };
}
const runs = Number(process.env.BENCH_RUNS ?? 5);
const throttled = inputOnly ? null : await throttledFigures(runs);
const browser = throttledOnly ? null : await browserFigures();

// ---------------------------------------------------------------- size
// What the page fetches: its stylesheets are inline in index.html (scripts/bake.mjs), counted there.
const pageFiles = ['index.html', 'app.js', 'state.js', 'embed.js', 'render.js', 'vramcalc-client.js',
  'core-api.mjs', 'core-client.js', 'core-local.js', 'core-worker.js', 'core-start.js', 'link.js', 'streams.js', 'hub.js', 'page-url.js', 'page-compute.js',
  'vramcalc.js', 'vramcalc.wasm', 'models.json', 'manifest.webmanifest', 'icons/icon.svg',
  ...readdirSync(path.join(web, 'panels')).filter((f) => f.endsWith('.js')).map((f) => `panels/${f}`)]
  .filter((f) => existsSync(path.join(web, f)));
const sizeOf = (files) => files.reduce((acc, f) => {
  const bytes = readFileSync(path.join(web, f));
  return { raw: acc.raw + bytes.length, gzip: acc.gzip + gzipSync(bytes, { level: 9 }).length };
}, { raw: 0, gzip: 0 });
const whole = sizeOf(pageFiles);
const widget = sizeOf(['widget.js', 'widget.css', 'parts.css', 'render.js', 'vramcalc-client.js', 'core-api.mjs', 'core-client.js', 'core-local.js', 'core-worker.js',
  'link.js', 'streams.js', 'vramcalc.js', 'vramcalc.wasm', 'models.json'].filter((f) => existsSync(path.join(web, f))));

if (wasm) {
  console.log('256-point sweep (seq) in wasm, Llama 3 8B, one core call; best of 400 (median):');
  for (const r of wasm.sweepRows) {
    console.log(`  ${r.name.padEnd(10)} ${fmt(r.best / 1000, 3)} ms (${fmt(r.median / 1000, 3)} ms)  -> ${fmt(r.perPoint, 3)} µs per numbers-only point`);
  }
  console.log(`  as the chart receives it (coreApi.sweep: header parsed, 256 point objects): ${fmt(wasm.sweepParse / 1000, 3)} ms`);
}
if (browser) {
const { cold, paint } = browser;
if (cold.length) console.log(`cold load to first result (fresh profile, localhost), 5 runs: median ${fmt(pct(cold, 50), 0)} ms, max ${fmt(Math.max(...cold), 0)} ms`);
console.log(`input to its new total painted, ${paint.toPaint.length} batch changes at random points of a frame, charts on (${paint.charts} areas):\n` +
  `  painted in the first frame after the input: ${paint.frames.filter((f) => f === 1).length}/${paint.frames.length} (the rest: ${paint.frames.filter((f) => f > 1).join(', ') || 'none'} frames)\n` +
  `  input to the start of the frame that paints it: p50 ${fmt(pct(paint.toFrame, 50), 1)} ms, p95 ${fmt(pct(paint.toFrame, 95), 1)} ms\n` +
  `  input to the end of that frame's paint: p50 ${fmt(pct(paint.toPaint, 50), 1)} ms, p95 ${fmt(pct(paint.toPaint, 95), 1)} ms\n` +
  `  the input's handler on the main thread: p50 ${fmt(pct(paint.sync, 50), 2)} ms, p95 ${fmt(pct(paint.sync, 95), 2)} ms`);
}
const med = (rows, key) => fmt(pct(rows.map((r) => r[key]), 50), 0);
const spread = (rows, key) => `${fmt(Math.min(...rows.map((r) => r[key])), 0)}–${fmt(Math.max(...rows.map((r) => r[key])), 0)}`;
if (throttled) {
const { rows, load } = throttled;
console.log(`throttled profile (CDP: ${PROFILE.cpu}× CPU, 1.6 Mbps / 150 ms RTT, gzip), ${runs} runs, load average ${load.map((l) => fmt(l, 1)).join(' → ')} on ${os.cpus().length} CPUs:`);
for (const [name, list] of [['cold visit', rows.cold], ['repeat visit, service worker, throttled', rows.repeat],
  ['repeat visit, service worker, unthrottled', rows.repeatFast]]) {
  console.log(`  ${name}: first number painted median ${med(list, 'number')} ms (${spread(list, 'number')}; ` +
    `${list.filter((r) => r.from === 'html').length}/${list.length} from the HTML), first core number median ${med(list, 'core')} ms ` +
    `(${spread(list, 'core')}), first contentful paint median ${med(list.filter((r) => r.fcp !== null), 'fcp')} ms; ` +
    `controlled by the service worker: ${list.filter((r) => r.controlled).length}/${list.length}`);
}
}
console.log(`page: ${pageFiles.length} files, ${fmt(whole.raw / 1024, 1)} KiB raw, ${fmt(whole.gzip / 1024, 1)} KiB gzip; ` +
  `widget: ${fmt(widget.raw / 1024, 1)} KiB raw, ${fmt(widget.gzip / 1024, 1)} KiB gzip`);
