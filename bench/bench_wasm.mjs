// WebAssembly benchmark under Node: microseconds per estimate through the
// same Embind call the page makes (JSON text in, JSON text out), over every
// model in models.json; plus the payload a browser downloads, raw and gzip.
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

let best = Infinity;
let bytes = 0;
for (let r = 0; r < rounds; r++) {
  const start = process.hrtime.bigint();
  for (const m of models) for (const j of jobs) bytes += vc.estimate(m, j).length;
  const us = Number(process.hrtime.bigint() - start) / 1000 / (models.length * jobs.length);
  best = Math.min(best, us);
}

const web = path.join(repo, 'web');
const size = (files) => {
  const raw = files.map((f) => readFileSync(path.join(web, f)));
  return { raw: raw.reduce((a, b) => a + b.length, 0), gzip: raw.reduce((a, b) => a + gzipSync(b, { level: 9 }).length, 0) };
};
const core = size(['vramcalc.wasm', 'vramcalc.js']);
const page = size(['vramcalc.wasm', 'vramcalc.js', 'index.html', 'style.css', 'parts.css', 'app.js', 'render.js',
  'vramcalc-client.js', 'widget.js', 'models.json']);
console.log(`models: ${models.length}, jobs per model: ${jobs.length}, rounds: ${rounds} (best round reported, ${(bytes / rounds / 1024).toFixed(0)} KiB of JSON per round)`);
console.log(`wasm estimate (JSON in/out): ${best.toFixed(1)} µs per estimate`);
console.log(`wasm + loader:      ${(core.raw / 1024).toFixed(1)} KiB raw, ${(core.gzip / 1024).toFixed(1)} KiB gzip`);
console.log(`whole page payload: ${(page.raw / 1024).toFixed(1)} KiB raw, ${(page.gzip / 1024).toFixed(1)} KiB gzip`);
