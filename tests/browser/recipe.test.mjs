// Recipe and engine controls, and the "What fits on my GPU" panel: every
// figure compared with the native CLI given the same job (never a number
// written here), presets shown as the core applied them, URL / widget /
// embed round trips, errors under the field, layout, axe and keyboard.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { offlineCalculator, openCalculator, settled, watchPage, waitForState, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vramcalc-recipe-'));
let jobFiles = 0;
// The CLI's answer for a job given as JSON (the same fields the page sends).
function native(model, job, extra = []) {
  const file = path.join(tmp, `job-${jobFiles++}.json`);
  writeFileSync(file, JSON.stringify(job));
  return JSON.parse(execFileSync(cli, ['--model', model, '--job', file, ...extra, '--json'], { encoding: 'utf8' }));
}
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const env = offlineCalculator();
const text = (page, selector) => page.locator(selector).first().innerText();

test('a training framework preset changes the numbers exactly as the CLI does; explicit fields override it', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&mode=train`);
  await page.click('#recipe-box summary');
  // option lists are the core's
  const frameworks = await page.locator('#framework option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(frameworks, ['custom', 'hf', 'accelerate_fsdp', 'torchtune', 'deepspeed', 'megatron', 'unsloth', 'torchtitan', 'nemo',
    'trl', 'verl', 'openrlhf']);  // issue 36: the post-training frameworks' base presets
  await page.selectOption('#framework', 'torchtune');
  const tt = native('llama-3-8b', { mode: 'train', framework: 'torchtune' });
  assert.equal(await text(page, '#total'), tt.total_text);
  assert.notEqual(tt.total_text, native('llama-3-8b', { mode: 'train' }).total_text);
  // untouched controls show the preset's values, and the assumptions list them
  assert.equal(await page.inputValue('#precision'), 'pure');
  assert.equal(await page.inputValue('#loss'), tt.job.loss);
  assert.equal(await page.inputValue('#report'), 'allocated');
  // each field once, in words, with its source; behind one disclosure that counts them
  const assumptions = await page.locator('#assumptions li').allTextContents();  // behind the closed disclosure
  assert.deepEqual(assumptions, tt.assumptions.map((a) => `${a.text} ${a.source}`));
  assert.equal(await text(page, '#assumptions-count'), `Assumptions (${tt.assumptions.length})`);
  assert.ok(tt.assumptions.some((a) => a.text === 'Loss: chunked (torchtune)'));
  // a field set by hand wins over the preset
  await page.selectOption('#precision', 'master');
  await page.selectOption('#optimizer_dtype', 'fp32');
  await page.check('#optimizer_in_backward');
  const job = { mode: 'train', framework: 'torchtune', precision: 'master', optimizer_dtype: 'fp32', optimizer_in_backward: true };
  const expected = native('llama-3-8b', job).total_text;
  assert.equal(await text(page, '#total'), expected);
  // the URL keeps exactly what was set, and reopening it gives the same figures
  const q = await waitForState(page, 'optimizer_in_backward', 'true');
  assert.equal(q.get('framework'), 'torchtune');
  assert.equal(q.get('precision'), 'master');
  assert.equal(q.has('loss'), false);  // left to the preset
  const again = await openCalculator(env.context, page.url());
  assert.equal(await text(again, '#total'), expected);
  assert.equal(await again.inputValue('#precision'), 'master');
  // the embed snippet carries the same fields as attributes, and the widget gives the same total
  await page.click('#embed');
  const snippet = await page.inputValue('#embed-code');
  assert.match(snippet, /framework="torchtune"/);
  assert.match(snippet, /optimizer-in-backward="true"/);
  // the JSON export holds the request the CLI replays
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(exported.request, job);
  assert.equal(native('llama-3-8b', exported.request).total_text, expected);
  assert.deepEqual(page.jsErrors, []);
});

test('a serving engine with its fields matches the CLI; a bad engine field shows under it, last result dimmed', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b`);
  await page.click('#recipe-box summary');
  assert.equal(await page.isVisible('#gpu_memory_utilization'), false);
  await page.selectOption('#gpu', 'h100');
  await page.selectOption('#engine', 'vllm');
  assert.equal(await page.isVisible('#gpu_memory_utilization'), true);
  assert.equal(await page.inputValue('#gpu_memory_utilization'), '0.9');  // vLLM's default, from the core
  assert.equal(await text(page, '#total'), native('llama-3-8b', { gpu: 'h100', engine: 'vllm' }).total_text);
  await page.fill('#gpu_memory_utilization', '0.8');
  await page.fill('#max_num_seqs', '64');
  const job = { gpu: 'h100', engine: 'vllm', gpu_memory_utilization: 0.8, max_num_seqs: 64 };
  const expected = native('llama-3-8b', job).total_text;
  assert.equal(await text(page, '#total'), expected);
  await page.fill('#gpu_memory_utilization', '2');
  assert.match(await text(page, '#gpu_memory_utilization-error'), /^must be between/);
  assert.match(await page.getAttribute('#gpu_memory_utilization', 'aria-describedby'), /gpu_memory_utilization-error/);
  assert.match(await page.getAttribute('#output', 'class'), /\bstale\b/);
  assert.equal(await text(page, '#total'), expected);
  await page.fill('#gpu_memory_utilization', '0.8');
  assert.equal(await page.locator('.field-error').count(), 0);
  // llama.cpp: n_gpu_layers and the KV type, with Ollama's preset context length shown when untouched
  await page.selectOption('#engine', 'ollama');
  const ollama = native('llama-3-8b', { gpu: 'h100', engine: 'ollama', gpu_memory_utilization: 0.8, max_num_seqs: 64 });
  assert.equal(await page.inputValue('#seq'), String(ollama.job.seq));
  assert.equal(await text(page, '#total'), ollama.total_text);
  await page.fill('#n_gpu_layers', '20');
  await page.selectOption('#kv_dtype', 'q8_0');
  assert.equal(await text(page, '#total'), native('llama-3-8b', { gpu: 'h100', engine: 'ollama', gpu_memory_utilization: 0.8,
    max_num_seqs: 64, n_gpu_layers: 20, kv_dtype: 'q8_0' }).total_text);
  // training keeps the engine in the URL but does not send it (the core refuses an engine for training)
  await page.selectOption('#mode', 'train');
  assert.equal(await page.isVisible('#error'), false);
  assert.deepEqual(page.jsErrors, []);
});

test('widget: recipe and engine attributes give the CLI figures; unknown values are errors naming the field', async () => {
  const page = watchPage(await env.context.newPage());
  await page.goto(`${env.server.url}embed-demo.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total));
  const total = (attrs) => page.evaluate(async (a) => {
    const w = document.createElement('vram-calc');
    for (const [k, v] of Object.entries(a)) w.setAttribute(k, v);
    document.body.append(w);
    for (let i = 0; i < 200 && !w.dataset.total && !w.dataset.error; i++) await new Promise((r) => setTimeout(r, 10));
    const out = w.dataset.total ?? `error: ${w.dataset.error}`;
    w.remove();
    return out;
  }, attrs);
  assert.equal(await total({ model: 'llama-3-8b', mode: 'train', framework: 'unsloth' }),
    native('llama-3-8b', { mode: 'train', framework: 'unsloth' }).total_text);
  // Under vLLM the widget's number is the answer's headline, what the users need (issue 33), not the engine's budget.
  const vllm = native('llama-3-8b', { engine: 'vllm', gpu: 'l4', gpu_memory_utilization: 0.85 });
  assert.equal(await total({ model: 'llama-3-8b', engine: 'vllm', gpu: 'l4', 'gpu-memory-utilization': '0.85' }), vllm.headline.total_text);
  assert.notEqual(vllm.headline.total_text, vllm.total_text);
  assert.match(await total({ model: 'llama-3-8b', engine: 'trtllm' }), /^error: Serving engine: must be one of/);
  assert.match(await total({ model: 'llama-3-8b', 'optimizer-in-backward': 'yes' }), /^error: [A-Z][\w -]*: must be true or false/);
  await page.close();
});

test('what fits: each answer fits when re-estimated, one step past does not (CLI), on a catalog or custom GPU', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&engine=llamacpp&dtype=q4_k_m&gpu=t4&seq=8192`);
  assert.equal(await page.inputValue('#gpu'), 't4');  // the link's GPU is your GPU
  const job = { engine: 'llamacpp', dtype: 'q4_k_m', gpu: 't4', seq: 8192 };
  const rows = await page.locator('#fits-answers tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.question));
  assert.deepEqual(rows, ['max_context', 'max_batch', 'best_format', 'min_gpus', 'max_gpu_layers']);
  const setting = { max_context: 'seq', max_batch: 'batch', min_gpus: 'gpus', max_gpu_layers: 'n_gpu_layers' };
  for (const q of rows) {
    const answer = native('llama-3-8b', job, ['--solve', q]);
    assert.equal(await text(page, `#fits-answers tr[data-question=${q}] td.answer`), answer.text);
    assert.ok(answer.found, q);
    const at = { ...job }, next = { ...job };
    if (q === 'best_format') {
      at.dtype = answer.format;
      if (answer.next_exists) next.dtype = answer.candidates[answer.next];
    } else {
      at[setting[q]] = answer.answer;
      next[setting[q]] = answer.next;
    }
    assert.equal(native('llama-3-8b', at).serving.fits, true, `${q} at ${answer.answer_label}`);
    if (answer.next_exists) {
      assert.equal(native('llama-3-8b', next).serving.fits, false, `${q} at ${answer.next_label}`);
      assert.match(await text(page, `#fits-answers tr[data-question=${q}] td.next`), /✗ does not fit$/);
    }
  }
  // a custom GPU (GiB) is a choice too, sent to the core as device_gib
  await page.selectOption('#gpu', 'custom');
  await page.check('#units-gib');
  await page.fill('#your-mem', '12');
  await settled(page);
  const custom = native('llama-3-8b', { ...job, gpu: undefined, device_gib: 12 }, ['--solve', 'max_context']);
  assert.equal(await text(page, '#fits-answers tr[data-question=max_context] td.answer'), custom.text);
  // another catalog GPU, remembered in the URL
  await page.check('#units-gb');
  await page.selectOption('#gpu', 'h100');
  await settled(page);
  await waitForState(page, 'gpu', 'h100');
  const h100 = native('llama-3-8b', { ...job, gpu: 'h100' }, ['--solve', 'max_batch']);
  assert.equal(await text(page, '#fits-answers tr[data-question=max_batch] td.answer'), h100.text);
  // training: longest context, largest batch and fewest GPUs on that GPU (no weight-format or -ngl question)
  await page.selectOption('#mode', 'train');
  await page.selectOption('#dtype', 'bf16');
  await settled(page);
  const trainRows = await page.locator('#fits-answers tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.question));
  assert.deepEqual(trainRows, ['max_context', 'max_batch', 'min_gpus']);
  const trainJob = { mode: 'train', dtype: 'bf16', gpu: 'h100', seq: 8192 };
  const fewest = native('llama-3-8b', trainJob, ['--solve', 'min_gpus']);
  assert.equal(await text(page, '#fits-answers tr[data-question=min_gpus] td.answer'), fewest.text);
  assert.match(fewest.text, /^fewest GPUs: \d+ \(ZeRO-3 \/ FSDP\)$/);
  // QLoRA: the Weights menu names what the core counts
  await page.selectOption('#mode', 'qlora');
  await page.selectOption('#dtype', 'auto');
  await settled(page);
  assert.match(await page.locator('#dtype option:checked').textContent(), /^Auto: NF4/);
  assert.deepEqual(page.jsErrors, []);
});

test('new controls: no horizontal overflow at 390/768/1280, axe clean, all reachable by keyboard', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=mixtral-8x7b&engine=vllm&gpu=h100&gpus=2`);
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  await settled(page);
  // generated controls are labelled in words, not by the field's name
  assert.equal(await page.locator('label[for=ep]').textContent(), 'Expert parallel (EP)');
  for (const width of [390, 768, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    assert.ok(scroll <= inner, `${width}px: page is ${scroll}px wide`);
  }
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes[0].target.join(' ')}`));
  assert.deepEqual(violations, []);
  const wanted = ['gpu', 'gpus', 'engine', 'gpu_memory_utilization', 'max_num_seqs', 'max_model_len', 'attention', 'report'];
  await page.focus('#intents button');
  const reached = new Set();
  for (let i = 0; i < 400 && !wanted.every((id) => reached.has(id)); i++) {
    await page.keyboard.press('Tab');
    reached.add(await page.evaluate(() => document.activeElement?.id));
  }
  for (const id of wanted) assert.ok(reached.has(id), `Tab reaches #${id}`);
});
