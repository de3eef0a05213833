// Issue 23, part B: the core's forgiving search (the walkthrough's queries each select the right model,
// the count counts the listed matches), the cluster planner on the user's GPUs (Llama 3 70B, 1T tokens on
// 256 H100: days and cost = the CLI's), the charts (the core's range capped at the model's context, the
// capacity line of the user's GPU, labels readable without hover), and the screenshots at 390 and 1280 px.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { offlineCalculator, openCalculator, settled, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const native = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));
const env = offlineCalculator();

// The user's GPUs as part A's control sets them (state.yourGpus), then one update.
async function setYourGpus(page, yours) {
  await page.evaluate(async (y) => {
    const [{ state }, { update }] = await Promise.all([import('./state.js'), import('./page-compute.js')]);
    state.yourGpus = y;
    await update({ push: true });
  }, yours);
  await settled(page);
}

// The search's listed matches (its "N matches" group) and the status line.
const listed = (page) => page.evaluate(() => {
  const group = [...document.querySelectorAll('#model optgroup')].find((g) => g.label !== 'Selected');
  return { ids: group ? [...group.querySelectorAll('option')].map((o) => o.value) : [], label: group?.label ?? '',
    status: document.getElementById('search-status').textContent };
});

test('search: the walkthrough\'s queries find their model; the count counts what is listed, best first', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=mistral-7b`);
  const cases = [
    ['deepseek v3', 'deepseek-v3'],
    ['qwen 2.5 7b', 'qwen2.5-7b'],
    ['llama3', 'llama-3-8b'],
    ['phi4', 'phi-4'],
    ['meta-llama/Llama-3.1-8B-Instruct', 'llama-3.1-8b'],
  ];
  for (const [query, id] of cases) {
    await page.fill('#model-search', query);
    await page.waitForFunction((want) => document.getElementById('model').value === want, id);
    await settled(page);
    const { ids, label, status } = await listed(page);
    assert.equal(ids[0], id, `${query}: best first`);
    const count = Number(status.match(/^(\d+) match/)?.[1]);
    assert.equal(count, ids.length, `${query}: "${status}" counts the ${ids.length} listed`);
    assert.equal(label, status);
  }
  // A query that matches several: the selected model stays listed apart ("Selected"), not counted.
  await page.fill('#model-search', 'gemma');
  await page.waitForFunction(() => /^\d+ matches$/.test(document.getElementById('search-status').textContent));
  const { ids, status } = await listed(page);
  assert.ok(ids.length > 1 && ids.every((i) => i.startsWith('gemma')), ids.join());
  assert.equal(Number(status.split(' ')[0]), ids.length);
  assert.equal(await page.inputValue('#model'), 'llama-3.1-8b');
  assert.equal(await page.locator('#model optgroup[label=Selected] option').getAttribute('value'), 'llama-3.1-8b');
  assert.deepEqual(page.jsErrors, []);
});

test('cluster: Llama 3 70B, 1T tokens on 256 H100 (your GPUs): days and cost first, equal to the CLI', async () => {
  const page = await openCalculator(env.context,
    `${env.server.url}index.html?model=llama-3-70b&mode=train&cl_tokens=1T&cl_price_per_gpu_hour=2.5`);
  await setYourGpus(page, { gpu: 'h100', count: 256, customGb: '' });
  await page.locator('#cluster .vc-cl-budget').waitFor();
  const want = native(['--model', 'llama-3-70b', '--mode', 'train', '--gpu', 'h100', '--gpus', '256',
    '--cluster-tokens', '1T', '--cluster-price-per-gpu-hour', '2.5']).planner;
  const budget = await page.locator('#cluster .vc-cl-budget .vc-cl-big').allInnerTexts();
  assert.deepEqual(budget, [want.train.budget.time_text, want.train.budget.cost_amount_text]);
  // Each figure carries its cross-validated range (issue 34): "45.1 days (38.8–46.8)", "$693,000 (596,000–719,000)".
  assert.match(budget[0], /days \(\d[\d.,]*–\d[\d.,]*\)$/);
  assert.match(budget[1], /^\$[\d.,]+( [MBT])? \([\d.,]+–[\d.,]+\)$/);
  assert.match(await page.locator('#cluster .vc-cl-range').first().innerText(), /leave-one-source-out cross-validation/);
  // Time and cost come before the step's figures.
  const order = await page.locator('#cluster .vc-cl-cards').first().getAttribute('class');
  assert.match(order, /vc-cl-budget/);
  assert.match(await page.locator('#cluster .vc-cl-hw').innerText(), new RegExp(want.hardware.nodes_text));
  // No GPU picker of its own; "1.5 trillion" is read by the core.
  assert.equal(await page.locator('#cl-gpu').count(), 0);
  await page.fill('#cl-tokens', '1.5 trillion');
  await page.dispatchEvent('#cl-tokens', 'change');
  await settled(page);
  const more = native(['--model', 'llama-3-70b', '--mode', 'train', '--gpu', 'h100', '--gpus', '256',
    '--cluster-tokens', '1.5 trillion', '--cluster-price-per-gpu-hour', '2.5']).planner;
  assert.equal(await page.locator('#cluster .vc-cl-budget .vc-cl-big').first().innerText(), more.train.budget.time_text);
  // An assumption edited on the page reaches the core: link efficiency 0.5 = the CLI's answer with it.
  await page.click('#cluster .vc-cl-assume summary');
  await page.fill('#cl-link_efficiency', '0.5');
  await page.dispatchEvent('#cl-link_efficiency', 'change');
  await settled(page);
  const slower = native(['--model', 'llama-3-70b', '--mode', 'train', '--gpu', 'h100', '--gpus', '256',
    '--cluster-tokens', '1.5 trillion', '--cluster-price-per-gpu-hour', '2.5', '--cluster-link-efficiency', '0.5']).planner;
  assert.equal(await page.locator('#cluster .vc-cl-budget .vc-cl-big').first().innerText(), slower.train.budget.time_text);
  assert.match(await page.locator('#cluster [data-key=link_efficiency]').innerText(), /50(\.0)? %/);
  // Refused: the error in words (not the field id), the input marked, the assumptions still editable.
  await page.fill('#cl-link_efficiency', '7');
  await page.dispatchEvent('#cl-link_efficiency', 'change');
  await page.locator('#cluster .vc-cl-error').waitFor();
  assert.doesNotMatch(await page.locator('#cluster .vc-cl-error').innerText(), /^cluster\./);
  assert.equal(await page.getAttribute('#cl-link_efficiency', 'aria-invalid'), 'true');
  assert.deepEqual(page.jsErrors, []);
});

test('charts: the core\'s range capped at the model\'s context, your GPU\'s line, labels without hover', async () => {
  // Llama 3 8B: 8,192 tokens of context; the job at 8k sits at the right end, never past it.
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&seq=8192`);
  const ticks = await page.locator('#chart-seq svg text.tick').allTextContents();
  assert.ok(ticks.includes('8k') && !ticks.includes('16k'), ticks.join());
  const label = await page.getAttribute('#chart-seq svg', 'aria-label');
  assert.match(label, /8k tokens: [\d.]+ GB, [\d.]+ GB at 8k/);
  assert.equal(await page.locator('#chart-seq .current-label').textContent(), await page.locator('#chart-seq .current-point title').textContent());
  assert.match(await page.locator('#chart-seq .current-label').textContent(), /^8k tokens: /);
  assert.ok(await page.locator('#chart-seq .chart-legend li').count() >= 3);
  assert.equal(await page.locator('#chart-seq .capacity').count(), 0);  // no GPU chosen: no line
  assert.equal(await page.locator('#line-gpu').count(), 0);
  // The line follows the user's GPU.
  await setYourGpus(page, { gpu: 'rtx4090', count: 1, customGb: '' });
  assert.match(await page.locator('#chart-seq .capacity-label').textContent(), /^RTX 4090 24GB: [\d.]+ GB$/);
  await setYourGpus(page, { gpu: 'h100', count: 1, customGb: '' });
  assert.match(await page.locator('#chart-batch .capacity-label').textContent(), /^H100 80GB: 84\.94 GB$/);
  await setYourGpus(page, { gpu: 'custom', count: 1, customGb: '24' });
  assert.equal(await page.locator('#chart-seq .capacity-label').textContent(), 'Your GPU: 24.00 GB');
  // The capacity label and the job's label never overlap.
  for (const id of ['chart-seq', 'chart-batch']) {
    const [a, b] = await Promise.all(['.capacity-label', '.current-label'].map((s) => page.locator(`#${id} ${s}`).boundingBox()));
    assert.ok(a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y, `${id}: labels overlap`);
  }
  // A long job on a long-context model: the core's log axis, said so on the chart.
  await page.goto(`${env.server.url}index.html?model=llama-3.1-8b&seq=131072&batch=64`);
  await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
  await settled(page);
  assert.match(await page.locator('#chart-seq .axis-label', { hasText: 'log scale' }).textContent(), /log scale/);
  const long = await page.locator('#chart-seq svg text.tick').allTextContents();
  assert.ok(long.includes('128k') && !long.includes('256k'), long.join());
  assert.deepEqual(page.jsErrors, []);
});

test('screenshots of the charts and the cluster planner at 390 and 1280 px, light and dark', async () => {
  for (const [width, scheme] of [[390, 'light'], [1280, 'light'], [390, 'dark'], [1280, 'dark']]) {
    const page = await openCalculator(env.context,
      `${env.server.url}index.html?model=llama-3-70b&mode=train&cl_tokens=1T&cl_price_per_gpu_hour=2.5`);
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await setYourGpus(page, { gpu: 'h100', count: 8, customGb: '' });
    for (const id of ['charts-panel', 'cluster']) {
      const file = `pageB-${id}-${width}-${scheme}`;
      await page.locator(`#${id}`).screenshot({ path: path.join(repo, 'tests', 'screenshots', `${file}.png`) });
    }
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
    await page.close();
  }
});
