// The chart and matrix calls in wasm: every sweep point and matrix cell
// equals the full estimate for the same job, and errors name the field.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo } from './load_wasm.mjs';
import { coreApi } from '../../web/core-api.mjs';

const vc = await loadVramcalc();
const api = coreApi(vc);
const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models;
const config = (id) => JSON.stringify(models.find((m) => m.id === id).config);

test('wasm sweep: each point equals the estimate for that value', () => {
  for (const [id, job, axis, values] of [
    ['llama-3-8b', { mode: 'train', checkpointing: 'full' }, 'batch', [1, 2, 3, 8, 64]],
    ['mixtral-8x7b', { mode: 'inference', kv_dtype: 'fp8' }, 'seq', [128, 4096, 32768]],
    ['qwen2.5-7b', { mode: 'lora' }, 'lora_rank', [8, 64, 256]],
  ]) {
    const s = api.sweep(config(id), job, axis, values);
    assert.equal(s.ok, true, JSON.stringify(s.error));
    s.points.forEach((p, i) => {
      const full = api.estimate(config(id), { ...job, [axis]: values[i] });
      assert.equal(p.value, values[i]);
      // The sweep's numbers are the core's doubles themselves; the estimate's JSON text
      // rounds fractional bytes to 12 significant digits.
      const same = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-11 * Math.abs(b), `${id} ${axis}=${values[i]} ${what}: ${a} vs ${b}`);
      same(p.total_bytes, full.total_bytes, 'total');
      assert.equal(p.bytes.length, full.terms.length);
      p.bytes.forEach((b, t) => same(b, full.terms[t].bytes, full.terms[t].key));
      assert.equal(p.total_text, full.total_text);
    });
  }
});

test('wasm sweep and matrix errors name the field', () => {
  const llama = config('llama-3-8b');
  assert.equal(api.sweep(llama, {}, 'seq', [0]).error.field, 'job.seq');
  assert.equal(api.sweep(llama, {}, 'width', [1]).error.field, 'sweep.axis');
  assert.equal(api.sweep(llama, { flash_attention: 'yes' }, 'seq', [1]).error.field, 'job.flash_attention');
  const m = api.matrix(llama, { seq: 1024 });
  const train = m.modes.indexOf('train');
  const q4 = m.rows.find((r) => r.dtype === 'q4_k_m');
  assert.equal(q4.cells[train].field, 'job.dtype');
  const bf16 = m.rows.find((r) => r.dtype === 'bf16');
  assert.equal(bf16.cells[train].total_bytes, api.estimate(llama, { seq: 1024, mode: 'train' }).total_bytes);
  assert.deepEqual(api.ticks(157.28e9).ticks.map((t) => t.text), ['0 GB', '50 GB', '100 GB', '150 GB', '200 GB']);
});
