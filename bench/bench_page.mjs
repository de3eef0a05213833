// Page benchmark (not a test): the budgets of issue 11, measured.
//   - a 256-point sweep in wasm (one core call), and per point: the
//     numbers-only estimate (compute_breakdown without texts) inside it;
//   - cold load to first result on localhost (fresh browser profile);
//   - input to its new total painted over 50 rapid changes with the charts on (p50, p95),
//     and the input handler's own time on the main thread;
//   - the whole page's size, gzip.
// usage: node bench/bench_page.mjs   (needs the wasm build in web/ and Chromium)
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { loadVramcalc, repo } from '../tests/wasm/load_wasm.mjs';
import { startServer, launchBrowser } from '../tests/browser/harness.mjs';

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
const wasm = process.env.VRAMCALC_BENCH_PAGE_ONLY ? null : await wasmFigures();

// ---------------------------------------------------------------- browser
const server = await startServer(web);
const cold = [];
for (let i = 0; i < 5; i++) {
  const context = await launchBrowser();  // fresh profile: no HTTP cache, no service worker
  const page = await context.newPage();
  await page.goto(`${server.url}index.html`);
  await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
  cold.push(await page.evaluate(() => performance.getEntriesByName('vramcalc:first-result')[0].startTime));
  await context.close();
}

const context = await launchBrowser();
const page = await context.newPage();
await page.goto(`${server.url}index.html?model=llama-3-8b&mode=train&line=h100`);
await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
const paint = await page.evaluate(async () => {
  // Input to the frame that shows its new total: the total is watched (a MutationObserver),
  // and the frame callback registered when it changes posts a message that runs right after
  // that frame's paint. With the core in a worker the answer arrives in a later task; with
  // the core on the main thread (older pages) the total changes inside the input's handler.
  // Both are measured the same way. "handler": the input event's own synchronous time on the
  // main thread (what typing waits for). Each input is dispatched once the previous one's total
  // is on screen (so it supersedes the previous input's deferred panels, as fast typing does).
  const input = document.getElementById('batch');
  const total = document.getElementById('total');
  const toPaint = [];
  const sync = [];
  for (let i = 0; i < 50; i++) {
    const shown = new Promise((resolve) => {
      const watch = new MutationObserver(() => {
        watch.disconnect();
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => resolve(performance.now());
          ch.port2.postMessage(0);
        });
      });
      watch.observe(total, { childList: true, characterData: true, subtree: true });
    });
    const t0 = performance.now();
    input.value = String((i % 16) + 1);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    sync.push(performance.now() - t0);
    toPaint.push((await shown) - t0);
  }
  return { toPaint, sync, charts: document.querySelectorAll('#chart-seq polygon, #chart-batch polygon').length };
});
await context.close();
await server.close();

// ---------------------------------------------------------------- size
const pageFiles = ['index.html', 'style.css', 'parts.css', 'app.js', 'state.js', 'embed.js', 'render.js', 'vramcalc-client.js',
  'core-api.mjs', 'core-client.js', 'core-worker.js', 'core-start.js', 'link.js', 'streams.js', 'hub.js', 'page-url.js', 'page-compute.js',
  'vramcalc.js', 'vramcalc.wasm', 'models.json', 'manifest.webmanifest', 'icons/icon.svg',
  ...readdirSync(path.join(web, 'panels')).map((f) => `panels/${f}`)].filter((f) => existsSync(path.join(web, f)));
const sizeOf = (files) => files.reduce((acc, f) => {
  const bytes = readFileSync(path.join(web, f));
  return { raw: acc.raw + bytes.length, gzip: acc.gzip + gzipSync(bytes, { level: 9 }).length };
}, { raw: 0, gzip: 0 });
const whole = sizeOf(pageFiles);
const widget = sizeOf(['widget.js', 'widget.css', 'parts.css', 'render.js', 'vramcalc-client.js', 'core-api.mjs', 'core-client.js', 'core-worker.js',
  'link.js', 'streams.js', 'vramcalc.js', 'vramcalc.wasm', 'models.json'].filter((f) => existsSync(path.join(web, f))));

if (wasm) {
  console.log('256-point sweep (seq) in wasm, Llama 3 8B, one core call; best of 400 (median):');
  for (const r of wasm.sweepRows) {
    console.log(`  ${r.name.padEnd(10)} ${fmt(r.best / 1000, 3)} ms (${fmt(r.median / 1000, 3)} ms)  -> ${fmt(r.perPoint, 3)} µs per numbers-only point`);
  }
  console.log(`  as the chart receives it (coreApi.sweep: header parsed, 256 point objects): ${fmt(wasm.sweepParse / 1000, 3)} ms`);
}
console.log(`cold load to first result (fresh profile, localhost), 5 runs: median ${fmt(pct(cold, 50), 0)} ms, max ${fmt(Math.max(...cold), 0)} ms`);
console.log(`input to its new total painted, 50 rapid batch changes, charts on (${paint.charts} areas): ` +
  `p50 ${fmt(pct(paint.toPaint, 50), 1)} ms, p95 ${fmt(pct(paint.toPaint, 95), 1)} ms (wall clock, with the wait for the next 60 Hz frame); ` +
  `the input's handler on the main thread p50 ${fmt(pct(paint.sync, 50), 2)} ms, p95 ${fmt(pct(paint.sync, 95), 2)} ms`);
console.log(`page: ${pageFiles.length} files, ${fmt(whole.raw / 1024, 1)} KiB raw, ${fmt(whole.gzip / 1024, 1)} KiB gzip; ` +
  `widget: ${fmt(widget.raw / 1024, 1)} KiB raw, ${fmt(widget.gzip / 1024, 1)} KiB gzip`);
