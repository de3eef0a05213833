// Hostile input through the wasm module (issue 13): deep nesting, huge
// texts, lone surrogates and duplicate keys give named errors; the module
// never traps, keeps answering correctly after hundreds of rejections, and
// its memory does not grow call after call.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo } from './load_wasm.mjs';

const vc = await loadVramcalc();
const decoder = new TextDecoder();
const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models;
const llama = JSON.stringify(models.find((m) => m.id === 'llama-3-8b').config);
// Llama 3 8B, default job: the total tests/cli_test.sh pins for the native CLI.
const llamaTotal = 18868203673.6;

const arrays = (depth) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const tooDeep = (field) => `${field}: nested deeper than 64 levels`;
const tooLarge = (field) => `${field}: larger than 8 MB (the limit for a JSON input is 8000000 bytes)`;

// Every answer is JSON; a rejection names a field (never "internal") and is short.
function answer(text) {
  const r = JSON.parse(text);
  if (!r.ok) {
    assert.notEqual(r.error.field, 'internal', r.error.message);
    assert.ok(r.error.message.startsWith(r.error.field + ': '), r.error.message);
    assert.ok(r.error.message.length < 1200, `message of ${r.error.message.length} characters`);
  }
  return r;
}
const estimate = (config, job) => answer(vc.estimate(config, job));
// The page's path: useConfig once, then estimateView per job.
const pageEstimate = (config, job) => {
  answer(vc.useConfig(config));
  return answer(decoder.decode(vc.estimateView(job)));
};
const message = (r) => (r.ok ? '' : r.error.message);
// A training estimate from the fresh module, before any hostile call.
const trainBefore = pageEstimate(llama, '{"mode":"train","checkpointing":"full"}');
const memoryBytes = () => vc.estimateView('{}').buffer.byteLength;  // the view lives in wasm memory

test('configs and jobs nested 65, 5,000 and 55,000 deep give the depth error', () => {
  for (const depth of [65, 5000, 55000]) {
    for (const deep of [arrays(depth), objects(depth)]) {
      assert.equal(message(estimate(deep, '{}')), tooDeep('config'));
      assert.equal(message(estimate(llama, deep)), tooDeep('job'));
      assert.equal(message(answer(vc.inspectConfig(deep))), tooDeep('config'));
      assert.equal(message(answer(vc.useConfig(deep))), tooDeep('config'));
      assert.equal(message(pageEstimate(llama, deep)), tooDeep('job'));
      assert.equal(message(answer(vc.modelsSummary(deep))), tooDeep('models.json'));
    }
  }
  // 64 levels are parsed: the error is about the shape.
  assert.equal(message(estimate(arrays(64), '{}')), 'config: must be a JSON object like a Hugging Face config.json');
});

test('a 100 MB string gives the size error, not a trap', () => {
  const huge = '{"model_type":"' + 'x'.repeat(100_000_000) + '"}';
  assert.equal(message(estimate(huge, '{}')), tooLarge('config'));
  assert.equal(message(estimate(llama, huge)), tooLarge('job'));
  // Just over the limit (copying 100 MB into wasm takes Embind about a second).
  const over = ' '.repeat(8_000_001);
  assert.equal(message(pageEstimate(over, '{}')), tooLarge('config'));
  assert.equal(message(answer(vc.modelsSummary(over))), tooLarge('models.json'));
  // Under the limit, a long value is quoted in 60 characters, not echoed.
  // (without the generic keys: with them an unknown architecture is estimated as approximate)
  const long = JSON.stringify({ model_type: 'y'.repeat(1_000_000) });
  assert.equal(message(estimate(long, '{}')).slice(0, 106),
    `config.model_type: unknown architecture '${'y'.repeat(60)}… (1000000 bytes)'`.slice(0, 106));
});

test('lone surrogates, duplicate keys and odd values are named errors', () => {
  // Embind encodes a lone surrogate as bytes that are not UTF-8; the parser rejects them.
  assert.match(message(estimate('{"model_type":"llama\ud800"}', '{}')), /^config: malformed JSON/);
  assert.match(message(estimate(llama, '{"\udfff":1}')), /^job: malformed JSON/);
  assert.equal(message(estimate(llama, '{"mode":"train","mode":"lora"}')), 'job.mode: given twice in one object');
  assert.equal(message(estimate(llama, '{"batch":"nan"}')), 'job.batch: must be a number, got "nan"');
  assert.equal(message(estimate(llama, '{"batch":[[[1]]]}')), 'job.batch: must be a number, got a list of 1 items');
  assert.match(message(estimate(llama, '{"batch":1e999}')), /^job: malformed JSON/);
});

test('500 hostile calls in a row leave the module working, with stable memory', () => {
  // A document leaked per call (55,000 levels, or 20,000 keys) would need
  // megabytes each time, so after a first round has grown memory to its
  // working size, a second round must not grow it at all.
  const manyKeys = '{' + Array.from({ length: 20_000 }, (_, i) => `"k${i}":0`).join(',') + '}';
  const hostile = [arrays(55000), objects(5000), '{"a":1,"a":2}', manyKeys, '{"hidden_size":1e999}', '', 'null',
    '{"\ud800":1}', '[' + '"]",'.repeat(1000) + '1]', '{"batch":"nan"}', `{"mode":${arrays(60)}}`];
  const calls = [(t) => estimate(t, '{}'), (t) => estimate(llama, t), (t) => answer(vc.useConfig(t)),
    (t) => answer(decoder.decode(vc.estimateView(t))), (t) => answer(vc.inspectConfig(t)),
    (t) => answer(vc.modelsSummary(t))];
  const round = () => {
    estimate('x'.repeat(9_000_000), '{}');  // over the size limit, once per round (copying it costs 0.1 s)
    for (let i = 0; i < 500; i++) {
      const text = hostile[i % hostile.length];
      const call = calls[Math.floor(i / hostile.length) % calls.length];
      call(text);
    }
  };
  round();
  const before = memoryBytes();
  round();
  assert.equal(memoryBytes(), before, 'wasm memory grew during 500 hostile calls');

  const direct = estimate(llama, '{}');
  assert.equal(direct.ok, true);
  assert.ok(Math.abs(direct.total_bytes - llamaTotal) < 1e-3, `${direct.total_bytes}`);
  assert.equal(trainBefore.ok, true);
  assert.deepEqual(pageEstimate(llama, '{"mode":"train","checkpointing":"full"}'), trainBefore);
});
