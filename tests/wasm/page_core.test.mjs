// Issue 23's core answers through wasm, as the page will call them: the verdict, the views,
// search, the ladder, intents, charts, GPUs in a unit; each equal to the native CLI's answer.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo, estimatePart } from './load_wasm.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const native = (...args) => execFileSync(cli, args, { encoding: 'utf8' });
const vc = await loadVramcalc();
const decoder = new TextDecoder();
const catalogText = readFileSync(path.join(repo, 'models.json'), 'utf8');
const models = JSON.parse(catalogText).models;
const use = (id) => JSON.parse(vc.useConfig(JSON.stringify(models.find((m) => m.id === id).config)));
const estimate = (job) => JSON.parse(decoder.decode(vc.estimateView(JSON.stringify(job))));
const answer = (question) => JSON.parse(decoder.decode(vc.answer(JSON.stringify(question))));

test('the verdict for the user GPU equals the CLI, and leads its text answer', () => {
  use('llama-3.1-8b');
  const e = estimate({ mode: 'qlora', gpu: 'rtx4090' });
  assert.equal(e.verdict.status, 'fits');
  assert.equal(e.verdict.symbol, '✓');
  const text = native('--model', 'llama-3.1-8b', '--mode', 'qlora', '--gpu', 'rtx4090', '--engine', 'custom');
  assert.equal(text.split('\n')[0], e.verdict.text);
  assert.deepEqual(e, estimatePart(JSON.parse(native('--model', 'llama-3.1-8b', '--mode', 'qlora', '--gpu', 'rtx4090', '--engine', 'custom', '--json'))));
  assert.match(e.verdict.text, /^✓ fits your RTX 4090 24GB: 15\.39 GB of 25\.38 GB \(61 %\), 10\.00 GB free$/);
});

test('no GPU: the headline says "in all", each GPU its own share; training names a data-centre GPU', () => {
  use('deepseek-v3');
  const v = estimate({}).verdict;
  assert.equal(v.status, 'none');
  assert.match(v.headline, /^709\.\d\d GB in all → \d+ × /);
  use('llama-3-8b');
  const t = estimate({ mode: 'train' });
  assert.equal(t.verdict.recommendation.gpu, 'b200');
  assert.equal(t.verdict.recommendation.tight, false);
  assert.equal(t.views[0].key, 'classic');
  assert.deepEqual(t.views[0].rows.map((r) => r.key), ['weights', 'gradients', 'optimizer_moments', 'master_weights', 'activations']);
  assert.equal(t.views[0].rows[3].text, '32.12 GB');
  assert.equal(t.views[1].total_bytes, t.total_bytes);
  assert.equal(t.total_scope_text, 'on one GPU');
});

test('errors: a plain label beside the field id', () => {
  use('llama-3-8b');
  const e = estimate({ engine: 'vllm' });
  assert.equal(e.ok, false);
  assert.equal(e.error.field, 'job.gpu');
  assert.equal(e.error.label, 'Your GPU');
  assert.doesNotMatch(e.error.text, /device_gib|job\./);
  assert.equal(estimate({ batch: 0 }).error.label, 'Batch (per GPU)');
});

test('search: the issue cases, a count that counts the list, did you mean', () => {
  assert.equal(JSON.parse(vc.useCatalog(catalogText)).count, models.length);
  for (const [q, first] of [['deepseek v3', 'deepseek-v3'], ['qwen 2.5 7b', 'qwen2.5-7b'], ['llama3', 'llama-3-8b'],
    ['phi4', 'phi-4'], ['meta-llama/Llama-3.1-8B-Instruct', 'llama-3.1-8b'], ['r1', 'deepseek-r1']]) {
    const r = JSON.parse(vc.searchModels(q));
    assert.equal(r.models[0].id, first, q);
    assert.equal(r.count, r.models.length);
  }
  assert.equal(JSON.parse(vc.lookupModel('google/gemma-2-9b-it')).id, 'gemma-2-9b');
  assert.match(JSON.parse(vc.lookupModel('gpt-7')).error.message, /^model: unknown model 'gpt-7'; did you mean /);
  assert.deepEqual(JSON.parse(vc.searchModels('qwen 2.5 7b')), JSON.parse(native('--search', 'qwen 2.5 7b')));
});

test('the ladder, intents and GPUs in a unit equal the CLI', () => {
  use('llama-3-70b');
  const ladder = JSON.parse(vc.ladder(JSON.stringify({ gpu: 'rtx4090' })));
  assert.deepEqual(ladder, JSON.parse(native('--model', 'llama-3-70b', '--gpu', 'rtx4090', '--ladder')));
  assert.equal(ladder.rungs.length, 8);
  assert.deepEqual(JSON.parse(vc.intents()), JSON.parse(native('--intents')));
  const gib = JSON.parse(vc.gpusIn('gib'));
  assert.equal(gib.find((g) => g.id === 'rtx4090').capacity_text, '23.64 GiB');
  assert.equal(JSON.parse(vc.gpus()).find((g) => g.id === 'rtx4090').capacity_text, '25.38 GB');
  assert.equal(JSON.parse(vc.gpusIn('furlongs')).error.field, 'job.units');
});

test('charts: the range around the job, capped at the context, with the capacity line', () => {
  use('llama-3-8b');
  const c = JSON.parse(vc.chart(JSON.stringify({ gpu: 'rtx4090' }), 'seq'));
  assert.equal(c.ok, true);
  assert.equal(c.points[0].value, 512);
  assert.equal(c.points.at(-1).value, 8192);
  assert.equal(c.current.value, 4096);
  assert.equal(c.capacity.text, '25.38 GB');
  const at = c.points.find((p) => p.current);
  assert.equal(at.total_bytes, estimate({ gpu: 'rtx4090' }).total_bytes);
});

test('bake: the first view as the build writes it equals the wasm answer', () => {
  const baked = JSON.parse(native('--bake'));
  use('llama-3-8b');
  assert.deepEqual(estimatePart(baked.estimate), estimate({}));
  assert.deepEqual(baked.counterpart, estimate({ mode: 'train' }));
  assert.deepEqual(baked.estimate, answer({ model_name: 'Llama 3 8B', job: {}, parts: ['head'] }));
});

test('the one answer through wasm equals the CLI\'s --json, every part, for the same question (issue 33)', () => {
  use('llama-3.1-8b');
  const asked = { model_name: 'Llama 3.1 8B', job: { mode: 'qlora', gpu: 'rtx4090' }, cluster: {} };
  assert.deepEqual(answer(asked), JSON.parse(native('--model', 'llama-3.1-8b', '--mode', 'qlora', '--gpu', 'rtx4090', '--json')));
  use('qwen3-30b-a3b');
  const serve = { model_name: 'Qwen3 30B-A3B (MoE)', intent: 'serve', job: { gpu: 'h100', batch: 16, seq: 32768 }, cluster: {} };
  const a = answer(serve);
  assert.deepEqual(a, JSON.parse(native('--model', 'qwen3-30b-a3b', '--intent', 'serve', '--gpu', 'h100', '--batch', '16', '--seq', '32768',
    '--json')));
  assert.deepEqual(a.parts, ['head', 'what_fits', 'charts', 'planner', 'matrix', 'ladder']);
  // a part asked alone is the same part (the page asks them one by one)
  assert.deepEqual(answer({ ...serve, parts: ['what_fits'] }).what_fits, a.what_fits);
  assert.deepEqual(answer({ ...serve, parts: ['charts'] }).charts, a.charts);
});
