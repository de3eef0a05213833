// The page built around the user's GPU (issue 23): the walkthrough questions,
// each answered by one verdict for "Your GPUs" (and the panel the intent opens),
// asserted against the native CLI given the same job (build/vramcalc --job).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { offlineCalculator, openCalculator, screenshot, waitForState, repo, launchBrowser, watchPage, cspViolations } from './harness.mjs';
import { bakedPage, inlinedPage } from '../../scripts/bake.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vramcalc-yours-'));
let files = 0;
function native(source, job, extra = ['--json']) {
  const file = path.join(tmp, `job-${files++}.json`);
  writeFileSync(file, JSON.stringify(job));
  return JSON.parse(execFileSync(cli, [...source, '--job', file, ...extra], { encoding: 'utf8' }));
}
const intentJob = (id) => JSON.parse(execFileSync(cli, ['--intents'], { encoding: 'utf8' })).intents.find((i) => i.id === id).job;
const env = offlineCalculator();
const text = (page, selector) => page.locator(selector).first().innerText();

test('Llama 3.1 8B QLoRA on an RTX 4090: the verdict, its colour, the table row; remembered after reload', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3.1-8b&mode=qlora`);
  await page.selectOption('#gpu', 'rtx4090');
  const expected = native(['--model', 'llama-3.1-8b'], { mode: 'qlora', gpu: 'rtx4090' }).verdict;
  assert.equal(expected.text, '✓ fits your RTX 4090 24GB: 15.39 GB of 25.38 GB (61 %), 10.00 GB free');  // issue 23's example
  assert.equal(await text(page, '#verdict'), expected.text);
  assert.equal(await page.getAttribute('#verdict', 'data-status'), 'fits');
  assert.match(await page.getAttribute('#fits tr[data-gpu=rtx4090]', 'class'), /\byours\b/);
  // the capacity is stated once, with its source
  assert.equal(await text(page, '#gpu-source'), `RTX 4090 24GB: ${expected.capacity_text} usable each (${expected.capacity_source}).`);
  await waitForState(page, 'gpu', 'rtx4090');
  // remembered: a reload, and a new visit with no GPU in its link
  await page.reload();
  await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
  assert.equal(await page.inputValue('#gpu'), 'rtx4090');
  assert.equal(await text(page, '#verdict'), expected.text);
  const later = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3.1-8b&mode=qlora`, { remembered: true });
  assert.equal(await later.inputValue('#gpu'), 'rtx4090');
  assert.equal(await text(later, '#verdict'), expected.text);
  // GiB: one switch, every size in the same unit (the core's texts)
  await later.check('#units-gib');
  const gib = native(['--model', 'llama-3.1-8b'], { mode: 'qlora', gpu: 'rtx4090', units: 'gib' });
  assert.equal(await text(later, '#verdict'), gib.verdict.text);
  assert.match(gib.verdict.text, / GiB of /);
  assert.equal(await text(later, '#total'), gib.total_text);
  assert.match(await later.locator('#gpu option[value=rtx4090]').textContent(), /GiB$/);
  assert.deepEqual(page.jsErrors, []);
  assert.deepEqual(later.jsErrors, []);
});

test('Qwen3-30B-A3B served on vLLM, 16 users × 32k on an H100: the KV the users need against the pool', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen3-30b-a3b&gpu=h100`);
  await page.click('#intents button[data-intent=serve]');
  assert.equal(await page.inputValue('#engine'), 'vllm');
  await page.fill('#batch', '16');
  await page.fill('#seq', '32768');
  const expected = native(['--model', 'qwen3-30b-a3b'], { ...intentJob('serve'), gpu: 'h100', batch: 16, seq: 32768 });
  assert.equal(await text(page, '#verdict'), expected.verdict.text);
  assert.equal(await page.getAttribute('#verdict', 'data-status'), expected.verdict.status);
  assert.match(expected.verdict.text, /^✗ does not fit your H100 80GB: needs 51\.54 GB of KV for 16 users × 32,768 tokens; the pool holds [\d,]+ tokens/);
  assert.equal(await text(page, '#serving-view'), expected.serving_view.text);
  // the matrix under an engine says what each format leaves for KV
  const cell = await text(page, '#matrix tr[data-dtype=bf16] td[data-mode=inference]');
  assert.notEqual(cell, expected.total_text);
  assert.match(cell, /tokens|users/);
  assert.deepEqual(page.jsErrors, []);
});

test('Llama 3 8B full training: the classic split (weights, gradients, m + v, fp32 master, activations) and the peak', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&mode=train`);
  const answer = native(['--model', 'llama-3-8b'], { mode: 'train' });
  const row = (key) => text(page, `#breakdown tr[data-term=${key}] td.num`);
  const [classic, peak] = ['classic', 'peak'].map((key) => answer.views.find((v) => v.key === key));
  assert.equal(await row('gradients'), peak.rows.find((r) => r.key === 'gradients').text);  // 1.05 GB live at the peak
  assert.equal(await text(page, '#total'), answer.total_text);
  await page.check('#view-classic');
  for (const r of classic.rows) assert.equal(await row(r.key), r.text, r.key);
  assert.deepEqual(classic.rows.map((r) => r.text).slice(0, 4), ['16.06 GB', '16.06 GB', '64.24 GB', '32.12 GB']);
  assert.equal(await text(page, '#total'), classic.total_text);
  assert.equal(await text(page, '#view-text'), classic.text);
  // no GPU chosen: for training the core recommends data-centre GPUs with headroom
  assert.equal(await text(page, '#verdict'), answer.verdict.text);
  assert.match(answer.verdict.text, /→ 1 × B200 192GB: .* free$/);
  assert.match(await text(page, '#notes'), /16 bytes of model state per parameter/);
});

test('DeepSeek-V3 as shipped (FP8): in all, not per GPU, and how many H100s', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=deepseek-v3`);
  const none = native(['--model', 'deepseek-v3'], {}).verdict;
  assert.equal(await text(page, '#verdict'), none.text);
  assert.match(none.text, /^709\.09 GB in all → \d+ × /);
  await page.selectOption('#gpu', 'h100');
  const h100 = native(['--model', 'deepseek-v3'], { gpu: 'h100' }).verdict;
  assert.equal(await text(page, '#verdict'), h100.text);
  assert.equal(h100.needs_gpus, 9);
  assert.match(await text(page, '#verdict'), /needs 9 × H100 80GB \(TP 1 × PP 9\), 80\.65 GB each/);
  assert.equal(await page.getAttribute('#verdict', 'data-status'), 'no');
  assert.equal(await text(page, '#fits tr[data-gpu=h100] td:nth-child(4)'), '9');
});

test('Mistral 7B on a 12 GB card, run locally: the quant ladder with full / partial -ngl N badges', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=mistral-7b&gpu=rtx3060`);
  await page.click('#intents button[data-intent=run_locally]');
  assert.equal(await page.inputValue('#dtype'), 'q4_k_m');
  const job = { ...intentJob('run_locally'), gpu: 'rtx3060' };
  const ladder = native(['--model', 'mistral-7b'], job, ['--ladder']);
  assert.equal(await page.isVisible('#ladder-panel'), true);
  for (const rung of ladder.rungs) {
    assert.match(await text(page, `#ladder tr[data-dtype=${rung.dtype}] td.how`), new RegExp(`${rung.text.replace(/[()+.*?]/g, '\\$&')}$`));
    assert.equal(await page.getAttribute(`#ladder tr[data-dtype=${rung.dtype}]`, 'data-status'), rung.status);
  }
  const f16 = ladder.rungs.find((r) => r.dtype === 'fp16');
  assert.equal(f16.status, 'partial');
  assert.match(await text(page, '#ladder tr[data-dtype=fp16] .badge'), new RegExp(`^partial -ngl ${f16.gpu_layers}$`));
  assert.equal(ladder.rungs.find((r) => r.dtype === 'q4_k_m').status, 'full');
  assert.equal(await text(page, '#verdict'), native(['--model', 'mistral-7b'], job).verdict.text);
});

test('a pasted config on your own memory size (GB): the verdict is the CLI\'s for that config', async () => {
  const config = path.join(repo, 'tests', 'fixtures', 'gpt-j-6b.config.json');
  const page = await openCalculator(env.context, env.server.url);
  await page.click('#tab-paste');
  await page.fill('#config-text', readFileSync(config, 'utf8'));
  await page.selectOption('#gpu', 'custom');
  await page.fill('#your-mem', '16');
  const expected = native(['--config', config], { device_gb: 16 }).verdict;
  assert.equal(await text(page, '#verdict'), expected.text);
  assert.match(expected.text, /your GPU of 16/);
  await waitForState(page, 'device_gb', '16');
});

test('phone (390 × 844): the verdict is on the first screen, before the form', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&mode=train&gpu=rtx4090`);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await page.locator('#verdict').boundingBox();
  assert.ok(box && box.y + box.height <= 844, `verdict ends at ${box?.y + box?.height}px`);
  const form = await page.locator('#controls').boundingBox();
  assert.ok(form.y > box.y, 'the form comes after the verdict');
  await screenshot(page, 'yours-390-first-screen', { fullPage: false });
  // Scrolled to the end, the total bar at the bottom covers nothing: the footer's last line sits above it.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const bar = await page.locator('#quick').boundingBox();
  const foot = await page.locator('footer.foot').boundingBox();
  assert.ok(bar && bar.height > 0, 'the total bar is shown on a phone');
  assert.ok(foot.y + foot.height <= bar.y, `the footer ends at ${foot.y + foot.height}px, the bar starts at ${bar.y}px`);
});

test('first paint: index.html holds the CLI\'s default figures (--bake), shown before the wasm and replaced by the core', async () => {
  const bake = JSON.parse(execFileSync(cli, ['--bake'], { encoding: 'utf8' }));
  const html = readFileSync(path.join(repo, 'web', 'index.html'), 'utf8');
  assert.equal(bakedPage(html, bake), html, 'index.html is baked with this core (scripts/bake.mjs)');
  // The first paint needs the page alone: its styles and first-view.js are inline, built from page.html and
  // the files of this build, and the policy allows just those (the browser refuses any other, below).
  const web = path.join(repo, 'web');
  assert.equal(inlinedPage(bakedPage(readFileSync(path.join(web, 'page.html'), 'utf8'), bake), web).html, html);
  assert.doesNotMatch(html, /<link rel="stylesheet"|<script src="first-view\.js"/);
  // Each stylesheet page.html links (five: parts, style, cluster, charts, what-fits) inline, and one hash each plus first-view.js's.
  const sheets = (readFileSync(path.join(web, 'page.html'), 'utf8').match(/<link rel="stylesheet"/g) ?? []).length;
  assert.equal(sheets, 5);
  assert.equal((html.match(/<style>/g) ?? []).length, sheets);
  assert.equal((html.match(/'sha256-/g) ?? []).length, sheets + 1);
  // A fresh profile (no service worker yet), the wasm held back: the baked figures are on screen.
  const context = await launchBrowser();
  try {
    const page = watchPage(await context.newPage());
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    await page.route('**/vramcalc.wasm', async (route) => { await gate; await route.continue(); });
    await page.route('**/*.css', (route) => route.abort());  // not needed: the page carries its styles
    await page.goto(env.server.url);
    await page.waitForSelector('#verdict[data-baked]');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.firstView), 'baked');
    assert.equal(await page.locator('#verdict').textContent(), bake.estimate.verdict.text);
    assert.equal(await page.locator('#card-training [data-total]').textContent(), bake.counterpart.total_text);
    assert.equal(await page.locator('#verdict').isVisible(), true);
    assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('summary')).display), 'grid', 'styled before any stylesheet file');
    release();
    await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 30000 });
    assert.equal(await page.locator('[data-baked]').count(), 0);
    assert.equal(await page.locator('#verdict').textContent(), bake.estimate.verdict.text);
    // a link with its own state hides the default figures until the core answers for it
    const other = watchPage(await context.newPage());
    await other.route('**/vramcalc.wasm', async (route) => { await new Promise((r) => setTimeout(r, 300)); await route.continue(); });
    await other.goto(`${env.server.url}index.html?model=mistral-7b`);
    assert.equal(await other.evaluate(() => document.documentElement.dataset.firstView), 'other');
    assert.deepEqual([...page.jsErrors, ...other.jsErrors], []);
    assert.deepEqual([...await cspViolations(page), ...await cspViolations(other)], []);
  } finally {
    await context.close();
  }
});
