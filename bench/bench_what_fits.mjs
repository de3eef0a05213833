// "What can I run?" (issue 35) in WebAssembly under Node, as the page's worker would call it: the catalog given
// once (useCatalog), then the whole list for a machine (whatFitsView: the answer's bytes, decoded natively), for
// several machines and intents. The first list prepares every model and its GGUF sizes; the later ones are what
// a change of the machine, a filter or the order costs. The target: one frame, 16 ms.
// usage: node bench/bench_what_fits.mjs [rounds]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo } from '../tests/wasm/load_wasm.mjs';

const rounds = Number(process.argv[2] || 20);
const vc = await loadVramcalc();
const decoder = new TextDecoder();
const requests = [
  { job: { gpu: 'rtx4090', ram_gb: 64 } },
  { job: { gpu: 'rtx3060' } },
  { job: { gpu: 'm3-max-128' } },
  { job: { gpu: 'cpu', ram_gb: 32 } },
  { job: { gpu: 'rtx4090', ram_gb: 64 }, sort: 'speed', filters: { family: 'Qwen3' } },
  { intent: 'serve', job: { gpu: 'h100' } },
  { intent: 'finetune', job: { gpu: 'rtx4090' } },
].map((r) => JSON.stringify(r));

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const given = JSON.parse(vc.useCatalog(readFileSync(path.join(repo, 'models.json'), 'utf8')));
if (!given.ok) throw new Error(`catalog refused: ${given.error.message}`);

let start = process.hrtime.bigint();
const first = JSON.parse(decoder.decode(vc.whatFitsView(requests[0])));
const cold = ms(start);
if (!first.ok) throw new Error(`list refused: ${first.error.message}`);
console.log(`models: ${first.considered}, rounds: ${rounds} (best reported), wasm`);
console.log(`first list (prepares every model and its GGUF sizes): ${cold.toFixed(1)} ms`);
console.log('    core   +decode  +JSON.parse  rows  KB   request');
for (const request of requests) {
  decoder.decode(vc.whatFitsView(request));  // this intent's formats warmed
  let core = Infinity, decoded = Infinity, parsed = Infinity, answer;
  for (let r = 0; r < rounds; r++) {
    start = process.hrtime.bigint();
    const view = vc.whatFitsView(request);
    core = Math.min(core, ms(start));
    start = process.hrtime.bigint();
    const text = decoder.decode(vc.whatFitsView(request));
    decoded = Math.min(decoded, ms(start));
    start = process.hrtime.bigint();
    answer = JSON.parse(decoder.decode(vc.whatFitsView(request)));
    parsed = Math.min(parsed, ms(start));
    if (view.length !== text.length && !text.length) throw new Error('empty answer');
  }
  if (!answer.ok) throw new Error(`list refused: ${answer.error.message}`);
  const kb = Buffer.byteLength(JSON.stringify(answer)) / 1024;
  console.log(`${core.toFixed(2).padStart(8)} ${decoded.toFixed(2).padStart(8)} ${parsed.toFixed(2).padStart(10)} ${String(answer.count).padStart(6)} ${kb.toFixed(0).padStart(4)}   ${request}`);
}
