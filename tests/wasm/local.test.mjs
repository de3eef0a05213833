// The core on the page's own thread (web/core-local.js), under Node: a second
// instance of the same compiled module answers a small job's totals exactly as
// the native CLI does, and leaves to the worker what is not for that thread:
// other methods, configs over 256 KiB, a config the worker has not answered
// quickly yet, and a config whose answers took longer than one frame three
// times in a row.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repo, estimatePart } from './load_wasm.mjs';
import { localCore, LOCAL_MS, READ_HERE_MS, workerAnswered } from '../../web/core-local.js';

const web = process.env.VRAMCALC_WEB || path.join(repo, 'web');
const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const native = (...args) => estimatePart(JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' })));
const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models;
// A catalog config, as the worker answered it in 5 ms (core-client.js reports each answer: workerAnswered).
const configOf = (id) => {
  const config = JSON.stringify(models.find((m) => m.id === id).config);
  workerAnswered(config, 5);
  return config;
};

// As the page has them: Emscripten's script loaded (createVramcalc), the module compiled once.
globalThis.createVramcalc = createRequire(import.meta.url)(path.join(web, 'vramcalc.js'));
const compiled = WebAssembly.compile(readFileSync(path.join(web, 'vramcalc.wasm')));
const started = localCore(compiled, pathToFileURL(`${web}/`));
const local = await started.ready.then(() => started);

test('a small job\'s totals on the page\'s thread: the job and its counterpart, as the CLI answers them', () => {
  const { result, other } = local.call('estimatePair', [configOf('llama-3-8b'), { mode: 'train', batch: '2' }]);
  assert.deepEqual(result, native('--model', 'llama-3-8b', '--mode', 'train', '--batch', '2', '--engine', 'custom'));
  assert.equal(result.total_text, native('--model', 'llama-3-8b', '--mode', 'train', '--batch', '2').total_text);
  assert.equal(other.job.mode, 'inference');
  assert.equal(other.total_text, native('--model', 'llama-3-8b', '--mode', 'inference', '--batch', '2').total_text);
  // A refused job is the core's error naming the field, as from the worker.
  const refused = local.call('estimatePair', [configOf('llama-3-8b'), { batch: '0' }]);
  assert.equal(refused.result.ok, false);
  assert.equal(refused.result.error.field, 'job.batch');
  assert.equal(refused.other, null);
});

test('what is not for the page\'s thread is left to the worker: other methods, and configs over 256 KiB', () => {
  assert.equal(local.call('chart', [configOf('llama-3-8b'), {}, 'seq']), undefined);
  assert.equal(local.call('matrix', [configOf('llama-3-8b'), {}]), undefined);
  const config = JSON.parse(configOf('mistral-7b'));
  const padded = JSON.stringify({ ...config, note: 'x'.repeat(256 * 1024) });
  workerAnswered(padded, 5);
  assert.equal(local.call('estimatePair', [padded, {}]), undefined);
  const small = JSON.stringify({ ...config, note: 'x'.repeat(1024) });
  workerAnswered(small, 5);
  assert.equal(local.call('estimatePair', [small, {}]).result.ok, true);
});

test('a config is read on the page\'s thread only once the worker has answered it within READ_HERE_MS (issue 37 H2)', () => {
  // Before: any config up to 256 KiB was read here on its first input; 2,000 skip-list patterns of x{9990}
  // took 5.7 s on the page's thread. Now the worker reads a config first, and only a quick one comes here.
  assert.equal(READ_HERE_MS, 100);
  const config = JSON.parse(JSON.stringify(models.find((m) => m.id === 'mistral-7b').config));
  const fresh = JSON.stringify({ ...config, note: 'never answered by the worker' });
  assert.equal(local.call('estimatePair', [fresh, {}]), undefined, 'a config the worker has not answered');
  workerAnswered(fresh, READ_HERE_MS + 1);
  assert.equal(local.call('estimatePair', [fresh, {}]), undefined, 'a config the worker took 101 ms to answer');
  workerAnswered(fresh, 3);
  assert.equal(local.call('estimatePair', [fresh, {}]).result.ok, true, 'a config the worker answered in 3 ms');
  workerAnswered(fresh, 500);
  assert.equal(local.call('estimatePair', [fresh, {}]), undefined, 'and no longer once an answer took 500 ms');
  // The skip list the issue found: refused by the core in the worker in milliseconds (a named error), and never read here.
  const hostile = JSON.stringify({ ...config, quantization_config: { quant_method: 'bitsandbytes', load_in_8bit: true,
    llm_int8_skip_modules: Array(2000).fill('x{9990}') } });
  assert.equal(local.call('estimatePair', [hostile, {}]), undefined);
});

test('a config whose answers took longer than one frame three times in a row goes to the worker from then on', () => {
  assert.equal(LOCAL_MS, 16);
  const slow = configOf('qwen2.5-7b');
  const fast = configOf('gemma-2-9b');
  const realNow = performance.now.bind(performance);
  let extra = 0;
  // Each answer made to take 20 ms of the clock, as a 10,000-layer config would on a slow device.
  performance.now = () => realNow() + (extra += 20);  // two readings per answer: 20 ms apart
  try {
    assert.ok(local.call('estimatePair', [slow, {}]).result.ok);
    assert.ok(local.call('estimatePair', [slow, {}]).result.ok);
    // A slow answer of another config in between: the run of slow answers starts again.
    assert.ok(local.call('estimatePair', [fast, {}]).result.ok);
    for (let i = 0; i < 3; i++) assert.ok(local.call('estimatePair', [slow, {}]).result.ok, `slow answer ${i + 1} still here`);
    assert.equal(local.call('estimatePair', [slow, {}]), undefined, 'the fourth goes to the worker');
  } finally {
    performance.now = realNow;
  }
  assert.equal(local.call('estimatePair', [slow, {}]), undefined, 'and stays there');
  assert.ok(local.call('estimatePair', [fast, {}]).result.ok, 'another config is still answered here');
});
