// Page benchmark (not a test): the budgets of issue 11, measured.
//   - a 256-point sweep in wasm (one core call), and per point: the
//     numbers-only estimate (compute_breakdown without texts) inside it;
//   - cold load to first result on localhost (fresh browser profile);
//   - input-to-paint over 50 rapid changes with the charts on (p50, p95);
//   - the whole page's size, gzip.
// usage: node bench/bench_page.mjs   (needs the wasm build in web/ and Chromium)
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { loadVramcalc, repo } from '../tests/wasm/load_wasm.mjs';
import { startServer, launchBrowser } from '../tests/browser/harness.mjs';

// VRAMCALC_WEB: another copy of web/ to measure (e.g. an older page with the same wasm), for before/after figures.
const web = process.env.VRAMCALC_WEB ? path.resolve(process.env.VRAMCALC_WEB) : path.join(repo, 'web');
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (x, d = 2) => x.toFixed(d);

// ---------------------------------------------------------------- wasm under Node
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
  // The frame callback is registered BEFORE the input, so it runs first in the next frame and
  // its message (posted from it) runs right after that frame's paint, ahead of the panels the
  // page defers past the paint. Wall clock: input to that message (it includes waiting for the
  // display's next frame, up to 16.7 ms at 60 Hz). Work: the input's synchronous handling plus
  // the frame's own style, layout and paint (frame callback to message), without that wait.
  const nextPaint = () => new Promise((resolve) => requestAnimationFrame(() => {
    const frame = performance.now();
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve({ frame, painted: performance.now() });
    ch.port2.postMessage(0);
  }));
  const input = document.getElementById('batch');
  const toPaint = [];
  const sync = [];
  const work = [];
  for (let i = 0; i < 50; i++) {
    const painted = nextPaint();
    const t0 = performance.now();
    input.value = String((i % 16) + 1);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const t1 = performance.now();
    const p = await painted;
    sync.push(t1 - t0);
    toPaint.push(p.painted - t0);
    work.push(t1 - t0 + (p.painted - Math.max(p.frame, t1)));
  }
  return { toPaint, sync, work, charts: document.querySelectorAll('#chart-seq polygon, #chart-batch polygon').length };
});
await context.close();
await server.close();

// ---------------------------------------------------------------- size
const pageFiles = ['index.html', 'style.css', 'parts.css', 'app.js', 'state.js', 'embed.js', 'render.js', 'vramcalc-client.js',
  'core-api.mjs', 'vramcalc.js', 'vramcalc.wasm', 'models.json', 'manifest.webmanifest', 'icons/icon.svg',
  ...readdirSync(path.join(web, 'panels')).map((f) => `panels/${f}`)];
const sizeOf = (files) => files.reduce((acc, f) => {
  const bytes = readFileSync(path.join(web, f));
  return { raw: acc.raw + bytes.length, gzip: acc.gzip + gzipSync(bytes, { level: 9 }).length };
}, { raw: 0, gzip: 0 });
const whole = sizeOf(pageFiles);
const widget = sizeOf(['widget.js', 'widget.css', 'parts.css', 'render.js', 'vramcalc-client.js', 'core-api.mjs', 'vramcalc.js', 'vramcalc.wasm', 'models.json']);

console.log('256-point sweep (seq) in wasm, Llama 3 8B, one core call; best of 400 (median):');
for (const r of sweepRows) {
  console.log(`  ${r.name.padEnd(10)} ${fmt(r.best / 1000, 3)} ms (${fmt(r.median / 1000, 3)} ms)  -> ${fmt(r.perPoint, 3)} µs per numbers-only point`);
}
console.log(`  as the chart receives it (coreApi.sweep: header parsed, 256 point objects): ${fmt(sweepParse / 1000, 3)} ms`);
console.log(`cold load to first result (fresh profile, localhost), 5 runs: median ${fmt(pct(cold, 50), 0)} ms, max ${fmt(Math.max(...cold), 0)} ms`);
console.log(`input-to-paint, 50 rapid batch changes, charts on (${paint.charts} areas): work (handler + the frame's style, layout, paint) ` +
  `p50 ${fmt(pct(paint.work, 50), 1)} ms, p95 ${fmt(pct(paint.work, 95), 1)} ms; wall clock with the wait for the next 60 Hz frame ` +
  `p50 ${fmt(pct(paint.toPaint, 50), 1)} ms, p95 ${fmt(pct(paint.toPaint, 95), 1)} ms; synchronous handler p95 ${fmt(pct(paint.sync, 95), 1)} ms`);
console.log(`page: ${pageFiles.length} files, ${fmt(whole.raw / 1024, 1)} KiB raw, ${fmt(whole.gzip / 1024, 1)} KiB gzip; ` +
  `widget: ${fmt(widget.raw / 1024, 1)} KiB raw, ${fmt(widget.gzip / 1024, 1)} KiB gzip`);
