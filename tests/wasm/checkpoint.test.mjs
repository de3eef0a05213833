// useCheckpoint through wasm: checkpoint metadata handed over as a Uint8Array
// makes the weights exact, the estimate equals the native CLI's --checkpoint
// answer, and choosing a config again (useConfig) detaches it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo, estimatePart } from './load_wasm.mjs';
import { coreApi } from '../../web/core-api.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const fixture = (name) => path.join(repo, 'tests', 'fixtures', name);
const tinyConfig = readFileSync(fixture('tiny-llama.config.json'), 'utf8');
const header = new Uint8Array(readFileSync(fixture('tiny-llama.safetensors-header')));
const vc = await loadVramcalc();
const decoder = new TextDecoder();
const estimateNow = (job = {}) => JSON.parse(decoder.decode(vc.estimateView(JSON.stringify(job))));
const native = (...args) => estimatePart(JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' })));

test('useCheckpoint takes a Uint8Array: exact weights, the same estimate as the CLI with --checkpoint', () => {
  assert.equal(JSON.parse(vc.useConfig(tinyConfig)).ok, true);
  const answer = JSON.parse(vc.useCheckpoint(header));
  assert.equal(answer.ok, true, JSON.stringify(answer));
  const c = answer.checkpoint;
  assert.equal(c.format, 'safetensors');
  assert.equal(c.tensor_count, 12);
  assert.equal(c.weight_bytes, 1246720);
  assert.equal(c.weight_bytes_text, '1,246,720 bytes');
  assert.equal(c.config_comparison.difference, 0);
  assert.equal(c.config_comparison.difference_percent_text, '+0.00 %');
  const estimate = estimateNow();
  assert.equal(estimate.weights_source, 'exact');
  assert.deepEqual(estimate, native('--config', fixture('tiny-llama.config.json'), '--checkpoint', fixture('tiny-llama.safetensors-header')));
  // an ArrayBuffer is accepted too
  assert.equal(JSON.parse(vc.useCheckpoint(header.buffer.slice(header.byteOffset, header.byteOffset + header.byteLength))).ok, true);
});

test('a new useConfig clears the attached checkpoint', () => {
  vc.useConfig(tinyConfig);
  vc.useCheckpoint(header);
  assert.equal(estimateNow().weights_source, 'exact');
  vc.useConfig(tinyConfig);  // the same config again: a fresh model, no checkpoint
  const plain = estimateNow();
  assert.notEqual(plain.weights_source, 'exact');
  assert.deepEqual(plain, native('--config', fixture('tiny-llama.config.json')));
});

test('a rejected checkpoint names its field and leaves the model as it was', () => {
  vc.useConfig(tinyConfig);
  vc.useCheckpoint(header);
  const bad = new TextEncoder().encode('{"w": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 7]}}');
  const answer = JSON.parse(vc.useCheckpoint(bad));
  assert.equal(answer.ok, false);
  assert.equal(answer.error.field, 'checkpoint.w.data_offsets');
  assert.equal(estimateNow().weights_source, 'exact');
  // a truncated header says so
  const cut = JSON.parse(vc.useCheckpoint(header.subarray(0, 100)));
  assert.equal(cut.ok, false);
  assert.match(cut.error.message, /truncated/);
});

test('the page path (coreApi) re-attaches the checkpoint when its config is chosen again', () => {
  const api = coreApi(vc);
  const other = readFileSync(fixture('gpt2.config.json'), 'utf8');
  const attached = api.attachCheckpoint(tinyConfig, header);
  assert.equal(attached.ok, true);
  assert.equal(api.estimate(tinyConfig, {}).weights_source, 'exact');
  assert.notEqual(api.estimate(other, {}).weights_source, 'exact');  // another model: no checkpoint
  assert.equal(api.estimate(tinyConfig, {}).weights_source, 'exact');  // back: attached again
  api.detachCheckpoint();
  assert.notEqual(api.estimate(tinyConfig, {}).weights_source, 'exact');
});
