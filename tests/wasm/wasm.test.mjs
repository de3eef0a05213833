// The wasm module gives the same answers as the native build, and its own
// numbers are right for the seed example.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo, estimatePart } from './load_wasm.mjs';
import { coreApi } from '../../web/core-api.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models;
const vc = await loadVramcalc();
const fast = coreApi(vc);  // the page's path: useConfig once per model + estimateView

const jobs = [
  {},
  { mode: 'train', optimizer: 'adamw', checkpointing: 'full', batch: 2, seq: 2048 },
  { mode: 'qlora', lora_rank: 64, seq: 1024 },
  { mode: 'inference', dtype: 'q4_k_m', gpus: 2, seq: 32768, kv_dtype: 'fp8' },
  { mode: 'train', gpus: 16, zero: 3, tp: 2, optimizer: 'adam_8bit', flash_attention: false },
];

function native(modelId, job) {
  const args = ['--model', modelId, '--json'];
  for (const [k, v] of Object.entries(job)) {
    if (k === 'flash_attention') args.push(v ? '--flash' : '--no-flash');
    else args.push('--' + k.replaceAll('_', '-'), String(v));
  }
  try {
    return estimatePart(JSON.parse(execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })));
  } catch (e) {
    // Rejected input: exit status 2 and one line "vramcalc: error: <message>".
    assert.equal(e.status, 2, e.stderr);
    return { ok: false, message: e.stderr.replace(/^vramcalc: error: /, '').trim() };
  }
}

test('wasm (both paths) and native agree on every model in models.json', () => {
  let compared = 0;
  let rejected = 0;
  for (const m of models) {
    for (const job of jobs) {
      const fromWasm = JSON.parse(vc.estimate(JSON.stringify(m.config), JSON.stringify(job)));
      assert.deepEqual(fast.estimate(JSON.stringify(m.config), job), fromWasm, `page path, ${m.id}`);
      const fromNative = native(m.id, job);
      if (fromWasm.ok) {
        assert.deepEqual(fromWasm, fromNative, `${m.id} ${JSON.stringify(job)}`);
        compared++;
      } else {
        // Both reject, with the same message (e.g. GPT-2 XL's 25 heads cannot split over 2 GPUs).
        assert.deepEqual({ ok: false, message: fromWasm.error.message }, fromNative);
        rejected++;
      }
    }
  }
  assert.equal(compared + rejected, models.length * jobs.length);
  assert.ok(compared > 0.9 * models.length * jobs.length, `${rejected} rejected`);
});

test('seed example from wasm: 16.06 GB of weights, training 6-10x', () => {
  const llama = models.find((m) => m.id === 'llama-3-8b').config;
  const inf = JSON.parse(vc.estimate(JSON.stringify(llama), '{}'));
  const weights = inf.terms.find((t) => t.key === 'weights');
  assert.equal(weights.bytes, 8030261248 * 2);  // 8.03 B params × 2 bytes
  assert.equal(inf.fits.find((f) => f.id === 'rtx4090').fits_as_configured, true);
  const train = JSON.parse(vc.estimate(JSON.stringify(llama), '{"mode":"train"}'));
  // peak at the loss backward: (14 bytes · P + lm_head gradient 128256·4096·2 + 32 blocks · 4096 tokens ·
  // 200,840 saved bytes + 12 bytes per logit + lm_head's saved input 4096·4096·2) · 1.05 + 1e9, see tests/test_memory.cpp
  const P = 8030261248, allocated = 14 * P + 128256 * 4096 * 2 + 32 * 4096 * 200840 + 12 * 4096 * 128256 + 4096 * 4096 * 2;
  assert.ok(Math.abs(train.total_bytes - (allocated * 1.05 + 1e9)) < 1);
  assert.equal(train.timeline.peak_phase, 'loss_backward');
  assert.ok(train.ratio_to_weights > 6 && train.ratio_to_weights < 10);
});

test('wasm reports bad input as an error naming the field, never throws', () => {
  const llama = JSON.stringify(models.find((m) => m.id === 'llama-3-8b').config);
  const cases = [
    ['{"model_type": "llama", "hidden_size": ', '{}', 'config'],
    ['{"model_type": "rwkv"}', '{}', 'config.model_type'],
    [llama, '{"batch": -1}', 'job.batch'],
    [llama, '{"seq": "long"}', 'job.seq'],
    [llama, 'not json', 'job'],
  ];
  for (const [config, job, field] of cases) {
    const r = JSON.parse(vc.estimate(config, job));
    assert.equal(r.ok, false);
    assert.equal(r.error.field, field);
    assert.match(r.error.message, new RegExp('^' + field.replace('.', '\\.') + ': '));
  }
  const inspected = JSON.parse(vc.inspectConfig('{"model_type":"gpt2","n_embd":768,"n_layer":12,"n_head":12,"vocab_size":50257}'));
  assert.equal(inspected.model.params_total, 124439808);
});

test('models summary and options come from the core', () => {
  const summary = JSON.parse(vc.modelsSummary(readFileSync(path.join(repo, 'models.json'), 'utf8')));
  assert.equal(summary.ok, true);
  assert.equal(summary.models.length, models.length);
  assert.equal(summary.models.find((m) => m.id === 'mixtral-8x7b').params_active, 12879925248);
  // The page reads this summary as built natively (`vramcalc --list --json`, scripts/build.sh): byte for byte the same.
  assert.equal(execFileSync(cli, ['--list', '--json'], { encoding: 'utf8' }).trim(),
    vc.modelsSummary(readFileSync(path.join(repo, 'models.json'), 'utf8')));
  const options = JSON.parse(vc.options());
  assert.ok(options.dtypes.some((d) => d.id === 'q4_k_m' && d.bits === 4.85));
  assert.ok(JSON.parse(vc.gpus()).some((g) => g.id === 'h100' && Math.abs(g.capacity_bytes - 79.11 * 2 ** 30) < 1));
});
