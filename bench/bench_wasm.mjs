// WebAssembly benchmark under Node: microseconds per estimate through the
// Embind calls the page makes, over every model in models.json × 4 jobs;
// plus the payload a browser downloads, raw and gzip.
// usage: node bench/bench_wasm.mjs [rounds]
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { loadVramcalc, repo } from '../tests/wasm/load_wasm.mjs';

const rounds = Number(process.argv[2] || 20);
const vc = await loadVramcalc();
const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models.map((m) => JSON.stringify(m.config));
const jobs = [
  '{}',
  '{"mode":"train","checkpointing":"full","batch":4,"seq":2048}',
  '{"mode":"qlora","lora_rank":64}',
  '{"mode":"train","gpus":64,"zero":3,"pp":4,"optimizer":"adam_8bit"}',
];

// Every timed call must be a real estimate, not a quick rejection.
for (const m of models) for (const j of jobs) {
  const r = JSON.parse(vc.estimate(m, j));
  if (!r.ok) throw new Error(`bench job rejected: ${r.error.message}`);
}

const decoder = new TextDecoder();
const paths = {
  // What the page does: the config crosses once per model (useConfig), the
  // answer comes back as bytes decoded natively (estimateView).
  'page path: useConfig once per model + estimateView + decode': (m, j, first) => {
    if (first) vc.useConfig(m);
    return decoder.decode(vc.estimateView(j));
  },
  'estimate(config, job): strings in and out on every call': (m, j) => vc.estimate(m, j),
  'page path + JSON.parse of the answer in JavaScript': (m, j, first) => {
    if (first) vc.useConfig(m);
    return JSON.parse(decoder.decode(vc.estimateView(j)));
  },
};
// Rounds interleave the paths so a slow moment of the machine hits all alike.
const best = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, call] of Object.entries(paths)) {
    const start = process.hrtime.bigint();
    for (const m of models) jobs.forEach((j, i) => call(m, j, i === 0));
    const us = Number(process.hrtime.bigint() - start) / 1000 / (models.length * jobs.length);
    best[name] = Math.min(best[name] ?? Infinity, us);
  }
}

const web = path.join(repo, 'web');
const size = (files) => {
  const raw = files.map((f) => readFileSync(path.join(web, f)));
  return { raw: raw.reduce((a, b) => a + b.length, 0), gzip: raw.reduce((a, b) => a + gzipSync(b, { level: 9 }).length, 0) };
};
const core = size(['vramcalc.wasm', 'vramcalc.js']);
const page = size(['vramcalc.wasm', 'vramcalc.js', 'index.html', 'style.css', 'parts.css', 'app.js', 'render.js',
  'vramcalc-client.js', 'core-api.mjs', 'widget.js', 'models.json']);
console.log(`models: ${models.length}, jobs per model: ${jobs.length}, rounds: ${rounds} (best round reported)`);
for (const [name, us] of Object.entries(best)) console.log(`${us.toFixed(1).padStart(6)} µs per estimate  ${name}`);
console.log(`wasm + loader:      ${(core.raw / 1024).toFixed(1)} KiB raw, ${(core.gzip / 1024).toFixed(1)} KiB gzip`);
console.log(`whole page payload: ${(page.raw / 1024).toFixed(1)} KiB raw, ${(page.gzip / 1024).toFixed(1)} KiB gzip`);
