// The cluster planner through the wasm export the page uses (cluster, on the
// model chosen with useConfig) answers exactly like the native CLI.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo } from './load_wasm.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models;
const vc = await loadVramcalc();

function native(modelId, job, cluster) {
  const args = ['--model', modelId, '--json', '--plan'];
  for (const [k, v] of Object.entries(job)) args.push('--' + k.replaceAll('_', '-'), String(v));
  for (const [k, v] of Object.entries(cluster)) {
    args.push('--cluster-' + k.replaceAll('_', '-'), typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  return JSON.parse(execFileSync(cli, args, { encoding: 'utf8' })).planner;  // the one answer's planner part
}

const cases = [
  ['llama-3.1-70b', { mode: 'train', seq: 4096, checkpointing: 'full' }, { gpu: 'h100', gpus: 64, tokens: 1e12, price_per_gpu_hour: 2 }],
  ['llama-3.1-8b', { mode: 'train', seq: 8192 }, { gpu: 'l40s', gpus: 16, fabric: 'eth-100', layout: { zero: 3 } }],
  ['mixtral-8x7b', { mode: 'inference', dtype: 'fp8' }, { gpu: 'mi300x', gpus: 8, concurrency: 32 }],
  ['deepseek-v3', { mode: 'train', seq: 4096 }, { gpu: 'gb200', gpus: 64, layout: { ep: 8, pp: 4, zero: 1 } }],
];

for (const [id, job, cluster] of cases) {
  test(`cluster ${id} ${JSON.stringify(cluster)}: wasm = native`, () => {
    const model = models.find((m) => m.id === id);
    assert.equal(JSON.parse(vc.useConfig(JSON.stringify(model.config))).ok, true);
    const ours = JSON.parse(vc.cluster(JSON.stringify(job), JSON.stringify(cluster)));
    assert.equal(ours.ok, true, JSON.stringify(ours.error));
    assert.deepEqual(ours, native(id, job, cluster));
  });
}

test('cluster: a bad request names its field', () => {
  vc.useConfig(JSON.stringify(models.find((m) => m.id === 'llama-3.1-8b').config));
  const r = JSON.parse(vc.cluster('{"mode":"train"}', '{"gpu":"h9000"}'));
  assert.equal(r.ok, false);
  assert.equal(r.error.field, 'cluster.gpu');
});
