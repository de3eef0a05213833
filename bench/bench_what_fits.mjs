// "What can I run?" (issue 35) in WebAssembly under Node, as the page's worker would call it: the catalog given
// once (useCatalog), then the whole list for a machine (whatFitsView: the answer's bytes, decoded natively), for
// several machines and intents. The first list prepares every model and its GGUF sizes; the later ones are what
// a change of the machine, a filter or the order costs. The target: one frame, 16 ms.
// usage: node bench/bench_what_fits.mjs [rounds] [warm-up calls]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo } from '../tests/wasm/load_wasm.mjs';

const rounds = Number(process.argv[2] || 20);
const warm = Number(process.argv[3] || 10);
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
console.log(`models: ${first.considered}, rounds: ${rounds} after ${warm} warm-up calls each (best reported), wasm under Node ${process.version}`);
console.log(`first list (prepares every model and its GGUF sizes; V8 not yet tiered up): ${cold.toFixed(0)} ms`);
console.log('  core ms (CPU ms)   decode ms  JSON.parse ms  rows    KB  request');
const cpuMs = (u) => (u.user + u.system) / 1000;
for (const request of requests) {
  for (let i = 0; i < warm; i++) decoder.decode(vc.whatFitsView(request));  // this intent's formats, V8's optimized tier
  let core = Infinity, cpu = Infinity, decode = Infinity, parse = Infinity, answer, text;
  for (let r = 0; r < rounds; r++) {
    const used = process.cpuUsage();
    start = process.hrtime.bigint();
    const view = vc.whatFitsView(request);
    core = Math.min(core, ms(start));
    cpu = Math.min(cpu, cpuMs(process.cpuUsage(used)));
    start = process.hrtime.bigint();
    text = decoder.decode(view);
    decode = Math.min(decode, ms(start));
    start = process.hrtime.bigint();
    answer = JSON.parse(text);
    parse = Math.min(parse, ms(start));
  }
  if (!answer.ok) throw new Error(`list refused: ${answer.error.message}`);
  console.log(`${core.toFixed(2).padStart(7)} (${cpu.toFixed(2).padStart(6)})  ${decode.toFixed(2).padStart(9)}  ${parse.toFixed(2).padStart(13)}  ${String(answer.count).padStart(4)}  ${(text.length / 1024).toFixed(0).padStart(4)}  ${request}`);
}
