// Issue 33: one question, one coherent answer. The walk's questions, asked on the page as a visitor would
// (your GPUs, an intent, a field or two), each asserted, text and numbers, against the native CLI given the
// same question (build/vramcalc --intent … --json: the same answer the page renders), across the panels:
// the verdict, the cards, the recipe, the capacity line, what fits and the planner name one machine.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { offlineCalculator, openCalculator, screenshot, waitForState, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vramcalc-answer-'));
let files = 0;
// The CLI's answer to a question: flags (model, intent, FP8 recipe) and the job as a file.
function native(flags, job = {}) {
  const file = path.join(tmp, `job-${files++}.json`);
  writeFileSync(file, JSON.stringify(job));
  return JSON.parse(execFileSync(cli, [...flags, '--job', file, '--json'], { encoding: 'utf8' }));
}
const env = offlineCalculator();
const text = (page, selector) => page.locator(selector).first().innerText();
const texts = (page, selector) => page.locator(selector).allInnerTexts();

// Every row of "What fits" as the page shows it, against the answer's what_fits part.
async function assertFits(page, part) {
  assert.equal(await text(page, '#fits-note'), part.text);
  for (const row of part.rows) {
    const tr = `#fits-answers tr[data-question=${row.question}]`;
    assert.equal(await text(page, `${tr} td.answer`), row.text, row.question);
    assert.equal(await text(page, `${tr} td.at`), row.at_text, row.question);
    assert.equal(await text(page, `${tr} td.next`), row.next_text + (row.same_why ? ` (${row.same_why})` : ''), row.question);
    // the two sides differ, or the row says why
    if (row.next !== null) assert.ok(row.at_figure !== row.next_figure || row.same_why, `${row.question}: ${row.at_text} | ${row.next_text}`);
  }
}

test('Pre-train Llama 3 70B on 256 H100, 1T tokens: the intent keeps 256, takes torchtitan\'s 70B config, and every panel agrees', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-70b`);
  await page.selectOption('#gpu', 'h100');
  await page.fill('#gpus', '256');
  await page.click('#intents button[data-intent=pretrain]');
  assert.equal(await page.inputValue('#gpus'), '256', 'Pre-train keeps your 256 GPUs');
  await waitForState(page, 'intent', 'pretrain');
  const a = native(['--model', 'llama-3-70b', '--intent', 'pretrain', '--gpu', 'h100', '--gpus', '256']);
  assert.equal(a.job.tp, 8);
  assert.equal(a.job.checkpointing, 'full');
  assert.equal(a.job.batch, 8);
  assert.equal(await page.inputValue('#tp'), '8');  // the recipe's values on the form
  assert.equal(await page.inputValue('#checkpointing'), 'full');
  assert.equal(await text(page, '#verdict'), a.verdict.text);
  assert.match(a.verdict.text, /^✓ fits your 256 × H100 80GB: 35\.\d\d GB each of 84\.94 GB/);
  assert.equal(await text(page, '#model-jump'), 'Llama 3 70B');
  assert.equal(await text(page, '#recipe-text'), a.recipe.text);
  assert.match(a.recipe.text, /^Full training, torchtitan's Llama 3 70B config: /);
  assert.equal(await text(page, '#card-training [data-total]'), a.total_text);
  assert.equal(await text(page, '#card-training [data-sub]'), a.cards.find((c) => c.current).text);
  assert.equal(await text(page, '#gpu-source'), a.capacity.text);
  // the planner times the 1T tokens on the same 256 GPUs, its layout the job's
  assert.equal(a.planner.hardware.gpus, 256);
  assert.equal(await text(page, '#cluster .vc-cl-gpu'), `On your GPUs: ${a.planner.hardware.nodes_text} (set under Your GPUs).`);
  assert.equal(await text(page, '#cluster .vc-cl-budget .vc-cl-big'), a.planner.train.budget.time_text);
  assert.equal(a.planner_check.verdict_fits, true);
  assert.equal(a.planner_check.fits, true);
  assert.equal(await page.locator('#cluster .vc-cl-part').count(), 0, 'no parting of verdict and planner');
  await assertFits(page, a.what_fits);
  assert.equal(a.what_fits.gpus, 256);
  // the presets' internals behind one disclosure, each field once, no internal key
  const assumed = await page.locator('#assumptions > li').allTextContents();  // behind the closed disclosure
  assert.equal(await text(page, '#assumptions-count'), `Assumptions (${a.assumptions.length})`);
  assert.equal(new Set(a.assumptions.map((x) => x.key)).size, a.assumptions.length);
  assert.deepEqual(assumed.map((t) => t.split(' ')[0]), a.assumptions.map((x) => x.text.split(' ')[0]));
  // no text for people holds one of the core's keys (the sources beside them cite code, and may)
  const keys = Object.keys(a.job).filter((k) => k.includes('_'));
  for (const t of [...a.assumptions.map((x) => x.text), ...a.notes, a.recipe.text, a.verdict.text]) {
    for (const k of keys) assert.doesNotMatch(t, new RegExp(`\\b${k}\\b`), t);
  }
  assert.ok((await texts(page, '#notes li')).length <= 5);
  assert.deepEqual(page.jsErrors, []);
});

test('DeepSeek-V3 training on H100s with EP and FP8 from the page: the recipe\'s EP fitted to the GPUs, the FP8 recipe in memory and planner', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=deepseek-v3&gpu=h100&gpus=512`);
  await page.click('#intents button[data-intent=pretrain]');
  assert.equal(await page.inputValue('#ep'), '8');
  assert.equal(await page.inputValue('#checkpointing'), 'full');  // never selective_op, which the core refuses for MoE
  await page.selectOption('#fp8_recipe', 'blockwise');
  await waitForState(page, 'fp8_recipe', 'blockwise');
  const a = native(['--model', 'deepseek-v3', '--intent', 'pretrain', '--fp8-recipe', 'blockwise', '--gpu', 'h100', '--gpus', '512']);
  assert.equal(a.recipe.fp8, 'blockwise');
  assert.equal(await text(page, '#verdict'), a.verdict.text);
  assert.equal(await text(page, '#recipe-text'), a.recipe.text);
  assert.match(a.recipe.text, /^Full training, torchtitan's DeepSeek-V3 16B config: /);
  assert.equal(a.planner.train.precision, 'FP8 blockwise (1×128 / 128×128)');
  assert.match(await text(page, '#cluster'), /FP8 blockwise \(1×128 \/ 128×128\)/);
  await assertFits(page, a.what_fits);
  // the fewest GPUs the table, the verdict and "what fits" name is one count, its EP searched
  const fewest = a.what_fits.rows.find((r) => r.question === 'min_gpus');
  assert.equal(String(a.fits.find((f) => f.id === 'h100').gpus_needed), String(fewest.answer));
  assert.match(fewest.text, /^fewest GPUs: \d+ \(ZeRO-3, EP \d+\)$/);
  // your own EP wins over the recipe's
  await page.fill('#ep', '16');
  const own = native(['--model', 'deepseek-v3', '--intent', 'pretrain', '--fp8-recipe', 'blockwise', '--gpu', 'h100', '--gpus', '512'], { ep: 16 });
  assert.equal(await text(page, '#verdict'), own.verdict.text);
  assert.equal(await text(page, '#card-training [data-total]'), own.total_text);
  assert.deepEqual(page.jsErrors, []);
});

test('Qwen3-30B-A3B for 16 users × 32k on an H100: the headline is what the users need, the pool is vLLM\'s, what fits speaks in users', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen3-30b-a3b&gpu=h100`);
  await page.click('#intents button[data-intent=serve]');
  await page.fill('#batch', '16');
  await page.fill('#seq', '32768');
  const a = native(['--model', 'qwen3-30b-a3b', '--intent', 'serve', '--gpu', 'h100'], { batch: 16, seq: 32768 });
  assert.equal(await text(page, '#verdict'), a.verdict.text);
  // the big number: weights + the engine's fixed parts + 16 × 32,768 tokens of KV, not 0.9 × the GPU
  assert.equal(a.headline.kind, 'need');
  assert.equal(await text(page, '#card-inference [data-total]'), a.headline.total_text);
  assert.notEqual(a.headline.total_text, a.total_text);
  assert.equal(await page.locator('#stick').textContent(), `Qwen3 30B-A3B (MoE) · ${a.headline.total_text} ${a.headline.scope_text} · ${a.verdict.text}`);
  // the capacity line is the GPU's; the engine's budget and pool are its own view
  assert.equal(await text(page, '#gpu-source'), 'H100 80GB: 84.94 GB usable each (measured: PyTorch\'s total capacity on this GPU, from a published log).');
  assert.equal(await text(page, '#serving-need'), `What the users need: ${a.serving_view.need_why}. ${a.serving_view.engine_text}.`);
  assert.match(a.serving_view.engine_text, /^vLLM's own view: it takes 0\.90 × 84\.94 GB = 76\.45 GB of each GPU/);
  await assertFits(page, a.what_fits);
  // the planner's time per output token under this load, with its range (issue 34), as the core writes it
  assert.match(a.planner.serve.tpot_text, /^[\d.]+ ms \([\d.]+–[\d.]+\) per output token with 16 sequences/);
  assert.equal(await text(page, '#cluster .vc-cl-tpot'), a.planner.serve.tpot_text);
  assert.match(a.what_fits.rows.find((r) => r.question === 'max_batch').text, /^most users at once: \d+ users? × 32,768 tokens$/);
  // the matrix and the compare table speak in users and tokens
  assert.match(await text(page, '#matrix tr[data-dtype=bf16] td[data-mode=inference]'), /tokens · \d+ users? at 32,768/);
  await page.click('#compare-add');
  assert.equal(await text(page, '#compare tbody tr:nth-child(3) td'), a.serving_view.load_text);
  assert.equal(await text(page, '#compare tbody tr:nth-child(4) td'), a.serving_view.need_text);
  assert.deepEqual(page.jsErrors, []);
});

test('QLoRA Llama 3.1 8B on an RTX 4090: the answer names its recipe, the others beside it, the widget\'s the same', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3.1-8b&gpu=rtx4090`);
  await page.click('#intents button[data-intent=fine_tune]');
  const unsloth = native(['--model', 'llama-3.1-8b', '--intent', 'fine_tune', '--gpu', 'rtx4090']);
  assert.equal(await text(page, '#recipe-text'), unsloth.recipe.text);
  assert.match(unsloth.recipe.text, /^QLoRA, Unsloth's notebooks: \d+\.\d\d GB · HF \+ PEFT: \d+\.\d\d GB · torchtune: \d+\.\d\d GB \(each at batch 2 × 2,048 tokens\)$/);
  assert.equal(await text(page, '#card-training [data-title]'), 'QLoRA fine-tuning · NF4 (bitsandbytes, double-quant)');
  assert.equal(await text(page, '#verdict'), unsloth.verdict.text);
  // QLoRA chosen by hand, no intent: the same question with no framework preset, said so, Unsloth's beside it
  const plain = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3.1-8b&gpu=rtx4090&mode=qlora`);
  const custom = native(['--model', 'llama-3.1-8b', '--gpu', 'rtx4090'], { mode: 'qlora' });
  assert.equal(await text(plain, '#recipe-text'), custom.recipe.text);
  assert.match(custom.recipe.text, /^QLoRA, no framework preset \(plain PyTorch defaults\): 15\.39 GB · Unsloth: /);
  assert.equal(await text(plain, '#verdict'), '✓ fits your RTX 4090 24GB: 15.39 GB of 25.38 GB (61 %), 10.00 GB free');
  // leaving the intent by changing the mode keeps the recipe's values as the user's
  await page.selectOption('#mode', 'lora');
  assert.equal(await page.getAttribute('#intents button[data-intent=fine_tune]', 'aria-pressed'), 'false');
  assert.equal(await page.inputValue('#framework'), 'unsloth');
  assert.equal(await page.inputValue('#batch'), '2');
  assert.deepEqual([...page.jsErrors, ...plain.jsErrors], []);
});

test('no GPU chosen: the verdict recommends one, and "what fits" and the planner answer on that same GPU', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&mode=train`);
  const a = native(['--model', 'llama-3-8b'], { mode: 'train' });
  const r = a.verdict.recommendation;
  assert.equal(r.gpu, 'b200');
  assert.equal(await text(page, '#verdict'), a.verdict.text);
  assert.equal(await text(page, '#fits-title'), 'What fits on the recommended GPU');
  assert.equal(a.what_fits.gpu, r.gpu);
  await assertFits(page, a.what_fits);
  assert.match(await text(page, '#fits-note'), /^No GPU chosen: on the recommended B200 192GB · 191\.50 GB, with the rest of the job as set\.$/);
  assert.equal(a.planner.hardware.gpu.id, r.gpu);
  assert.equal(await text(page, '#cluster .vc-cl-gpu'),
    `No GPU chosen: on ${a.planner.hardware.nodes_text}, the GPUs the verdict recommends; choose yours under Your GPUs.`);
  assert.doesNotMatch(await text(page, '#fits-panel'), /M2 Ultra/);
  assert.equal(await text(page, '#gpu-source'), '');
  assert.deepEqual(page.jsErrors, []);
});

test('gpt-oss-120b with llama.cpp on an RTX 4090 and 64 GB of RAM: the machine\'s RAM, --fit\'s layout, the speed and the command, every part the CLI\'s (issue 32 in the one answer)', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=gpt-oss-120b&gpu=rtx4090&engine=llamacpp`);
  await page.fill('#ram-gb', '64');
  await waitForState(page, 'ram_gb', '64');
  // The page names the model in its launch line as the CLI does with model_id (the catalog's Hub id; issue 32).
  const a = native(['--model', 'gpt-oss-120b', '--gpu', 'rtx4090', '--ram-gb', '64'], { engine: 'llamacpp', model_id: 'openai/gpt-oss-120b' });
  assert.match(a.verdict.text, /^✓ fits with the routed experts of the first 24 of 36 layers in RAM \(--n-cpu-moe 24\): GPU [0-9.]+ GB of 25\.38 GB \(\d+ %\), system RAM [0-9.]+ GB of 64\.00 GB/);
  assert.equal(await text(page, '#verdict'), a.verdict.text);
  assert.equal(a.machine.text, '1 × RTX 4090 24GB, 25.38 GB usable each; 64.00 GB of system RAM');
  assert.equal(await text(page, '#command'), a.command.text);
  assert.match(a.command.text, /^llama-server -m \S+ -c 4096 -ngl 37 --n-cpu-moe 24 /);
  // "what fits" on the layout the verdict judged: the context it runs fits, and --n-cpu-moe is one of its rows
  await assertFits(page, a.what_fits);
  assert.ok(a.what_fits.rows.find((r) => r.question === 'max_context').answer >= 4096);
  assert.equal(a.what_fits.rows.find((r) => r.question === 'n_cpu_moe').answer, 24);
  // the RAM the visitor typed is remembered (panels/your-machine.js), and a page opened later asks with it
  const again = await openCalculator(env.context, `${env.server.url}index.html?model=gpt-oss-120b&engine=llamacpp&gpu=rtx4090`, { remembered: true });
  assert.equal(await again.inputValue('#ram-gb'), '64');
  assert.equal(await text(again, '#verdict'), a.verdict.text);
  assert.deepEqual([...page.jsErrors, ...again.jsErrors], []);
});

test('phone (390 × 844): the model\'s name and the verdict on the first screen, the model search one tap away', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen3-30b-a3b&gpu=rtx4090&mode=qlora`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const sel of ['#model-jump', '#verdict']) {
    const box = await page.locator(sel).boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= 844, `${sel} at ${box?.y}..${box?.y + box?.height}px`);
  }
  assert.equal(await text(page, '#model-jump'), 'Qwen3 30B-A3B (MoE)');
  // the bar at the bottom names the model too, and leads to the search
  assert.match(await text(page, '#quick'), /^Qwen3 30B-A3B \(MoE\): /);
  // the recipe line is one line (its fields behind "more")
  const summary = await page.locator('#intent-note summary').boundingBox();
  assert.ok(summary.height < 30, `the recipe line is ${summary.height}px high`);
  await screenshot(page, 'answer-390-first-screen', { fullPage: false });
  await page.click('#model-jump');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'model-search');
  const search = await page.locator('#model-search').boundingBox();
  assert.ok(search.y >= 0 && search.y + search.height <= 844, `the search at ${search.y}px after one tap`);
  assert.deepEqual(page.jsErrors, []);
});

test('desktop (1280): one sticky line, shown only once the verdict scrolls away; the GPU table keeps its grid', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&gpu=rtx4090`);
  assert.equal(await page.locator('#stick').isVisible(), false);
  await page.evaluate(() => document.getElementById('charts-panel').scrollIntoView());
  await page.waitForFunction(() => document.getElementById('stick').hasAttribute('data-shown'));
  const box = await page.locator('#stick').boundingBox();
  assert.ok(box.height <= 32, `the sticky line is ${box.height}px high`);
  // your GPU's row is a table row like the others (its class is the row's, not the band's flex box)
  const display = await page.evaluate(() => getComputedStyle(document.querySelector('#fits tr.yours')).display);
  assert.equal(display, 'table-row');
  assert.deepEqual(page.jsErrors, []);
});
