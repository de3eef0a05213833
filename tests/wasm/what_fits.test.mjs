// "What can I run?" (issue 35) through the wasm binding the page's worker and the widget will call: the whole
// catalog on a machine, answered as the native CLI answers it, as bytes (whatFitsView) or text (whatFits); the
// page's catalog (web/models.json, the core's summary) lists the same models with their catalog fields.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo } from './load_wasm.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const vc = await loadVramcalc();
const decoder = new TextDecoder();
const catalog = readFileSync(path.join(repo, 'models.json'), 'utf8');
assert.equal(JSON.parse(vc.useCatalog(catalog)).ok, true);
const list = (request) => JSON.parse(decoder.decode(vc.whatFitsView(JSON.stringify(request))));
const native = (...args) => JSON.parse(execFileSync(cli, ['--what-fits', ...args, '--json'], { encoding: 'utf8' }));

test('the whole list on a 24 GB GPU + 64 GB of RAM equals the native CLI\'s, row for row', () => {
  const answer = list({ job: { gpu: 'rtx4090', ram_gb: 64 }, filters: { modality: 'any' } });
  assert.equal(answer.ok, true);
  assert.deepEqual(answer, native('--gpu', 'rtx4090', '--ram-gb', '64', '--modality', 'any'));
  const oss = answer.rows.find((r) => r.id === 'gpt-oss-120b');
  assert.equal(oss.fit, 'experts_in_ram');
  assert.equal(oss.dtype, 'mxfp4');
  assert.equal(oss.job.seq, 8192);
  assert.match(oss.command, / --n-cpu-moe \d+ /);
});

test('serving and fine-tuning lists, filters and the order, as the CLI gives them', () => {
  const serve = list({ intent: 'serve', job: { gpu: 'h100' }, filters: { family: ['Qwen3', 'Llama 3'] }, sort: 'speed' });
  assert.deepEqual(serve, native('--intent', 'serve', '--gpu', 'h100', '--family', 'Qwen3,Llama 3', '--sort', 'speed'));
  assert.ok(serve.rows.every((r) => r.family === 'Qwen3' || r.family === 'Llama 3'));
  const tune = list({ intent: 'finetune', job: { gpu: 'rtx4090' }, filters: { size: 'small' } });
  assert.deepEqual(tune, native('--intent', 'finetune', '--gpu', 'rtx4090', '--size', 'small'));
  assert.ok(tune.rows.some((r) => r.mode === 'lora'));
});

test('the text and the bytes are the same answer; bad input is the core\'s error naming its field', () => {
  const request = JSON.stringify({ job: { gpu: 'm3-max-128' }, filters: { family: 'gpt-oss' } });
  assert.equal(vc.whatFits(request), decoder.decode(vc.whatFitsView(request)));
  assert.equal(list({ intent: 'train' }).error.field, 'intent');
  assert.equal(list({ job: { gpu: 'rtx4090', ram_gb: -1 } }).error.field, 'job.ram_gb');
  const nothing = list({ job: {} });
  assert.equal(nothing.ok, true);
  assert.equal(nothing.count, 0);
  assert.equal(nothing.empty.field, 'job.gpu');
  const pasted = list({ job: { gpu: 'rtx4090' }, configs: [{ name: 'mine', config: '{"model_type": "llama"' }] });
  assert.equal(pasted.config_errors[0].name, 'mine');
  assert.ok(pasted.count > 100);
});

test('the page\'s catalog carries the catalog fields the filters read', () => {
  const summary = JSON.parse(vc.modelsSummary(catalog));
  const llama = summary.models.find((m) => m.id === 'llama-3.1-8b');
  assert.equal(llama.family, 'Llama 3');
  assert.equal(llama.modality, 'text');
  assert.equal(llama.license, 'llama3.1');
  assert.match(llama.released, /^\d{4}-\d{2}$/);
  // Given as the page gives it (the summary), the list is the same.
  assert.equal(JSON.parse(vc.useCatalog(JSON.stringify(summary))).ok, true);
  const fromSummary = list({ job: { gpu: 'rtx4090', ram_gb: 64 } });
  vc.useCatalog(catalog);
  assert.deepEqual(fromSummary, list({ job: { gpu: 'rtx4090', ram_gb: 64 } }));
});
