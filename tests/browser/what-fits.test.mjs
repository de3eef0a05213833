// "What can I run?" (issue 35) on the page and in the widget: the list reached from Your GPUs, its rows, order and
// filters asserted against the native CLI given the same request (build/vramcalc --what-fits --json), the
// click-through to a model's own answer (the same numbers), the link, a phone, offline, and <vram-calc view="what-fits">.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, screenshot, watchPage, waitForState, cspViolations, stateOf, repo } from './harness.mjs';
import { waitForController } from './sw-helpers.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vramcalc-what-fits-'));
// The CLI's list for the same request (its flags), as JSON.
const listed = (...flags) => JSON.parse(execFileSync(cli, ['--what-fits', ...flags, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }));
const ids = (answer) => answer.rows.map((r) => r.id);
let files = 0;
// The CLI's single-model answer for a row's job.
function single(model, job) {
  const file = path.join(tmp, `job-${files++}.json`);
  writeFileSync(file, JSON.stringify(job));
  return JSON.parse(execFileSync(cli, ['--model', model, '--job', file, '--json'], { encoding: 'utf8' }));
}

// The widget on a blog-like page of the test's own, with the strict policy the page is served with.
const WIDGET_PAGE = (attributes) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>post</title>
<script type="module" src="widget.js"></script></head><body><h1>My machine</h1><vram-calc id="w" ${attributes}></vram-calc></body></html>`;
let server, context;
const widgetPages = new Map();
before(async () => {
  server = await startServer(undefined, { override: (p) => (widgetPages.has(p) ? { body: widgetPages.get(p) } : undefined) });
  context = await launchBrowser();
  await context.route('https://huggingface.co/**', (route) => route.abort('internetdisconnected'));
});
after(async () => {
  await context?.close();
  await server?.close();
});

// axe-core's serious and critical violations on the page as it is (as layout.test.mjs runs it).
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
async function axe(page) {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

// Waits until the list on screen answers the latest request, every row in (panels/what-fits.js: data-state, aria-busy).
async function settledList(page) {
  await page.waitForSelector('#what-fits[data-state]:not([aria-busy])', { state: 'attached', timeout: 30000 });
}
const shownIds = (page) => page.locator('#wf-list tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.id));
const cell = (page, id, key) => page.locator(`#wf-list tr[data-id="${id}"] [data-label="${key}"]`).first().innerText();
const noOverflow = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

async function openList(query) {
  const page = await openCalculator(context, `${server.url}index.html?${query}`);
  await page.click('#what-fits-open');
  await settledList(page);
  return page;
}

test('the list on an RTX 4090 + 64 GB: the machine line, every row in the CLI\'s order with its figures; 1280 and 390 px', async () => {
  const page = await openList('model=llama-3.1-8b&gpu=rtx4090&ram_gb=64');
  const expected = listed('--gpu', 'rtx4090', '--ram-gb', '64');
  assert.equal(await page.locator('#results').isVisible(), false, 'the list is a view of its own');
  assert.equal(await page.locator('#wf-machine').innerText(),
    `Your machine: ${expected.machine.text}; ${expected.intent_text}, ${expected.context_text}.`);
  assert.match(expected.machine.text, /^RTX 4090 24GB \+ 64 GB RAM/);
  assert.equal(await page.locator('#wf-counts').innerText(),
    `${expected.count} of ${expected.considered} models listed, ${expected.runnable} run; sorted by size.`);
  assert.deepEqual(await shownIds(page), ids(expected));
  // gpt-oss-120b with its experts in RAM (LM Studio's badge), Llama 3.1 8B whole on the GPU: the core's texts.
  const oss = expected.rows.find((r) => r.id === 'gpt-oss-120b');
  assert.equal(oss.fit, 'experts_in_ram');
  assert.match(await cell(page, 'gpt-oss-120b', 'Fit'), /^Experts in RAM/);
  for (const [key, text] of [['GPU', `${oss.gpu.text}\n${oss.gpu.headroom_text}`], ['RAM', `${oss.ram.text}\n${oss.ram.headroom_text}`],
    ['Speed', oss.speed.text], ['Format', oss.format], ['Size', oss.params_text]]) assert.equal(await cell(page, 'gpt-oss-120b', key), text, key);
  assert.equal(await page.locator('#wf-list tr[data-id="gpt-oss-120b"] code').innerText(), oss.command);
  assert.match(await cell(page, 'llama-3.1-8b', 'Fit'), /^Full GPU/);
  // OPT-30B was trained on 2,048 tokens: sized at its own context, and its row says so under the format.
  const opt = expected.rows.find((r) => r.id === 'opt-30b');
  assert.equal(opt.context_capped, true);
  assert.equal(await cell(page, 'opt-30b', 'Format'), `${opt.format}\n${opt.context_text}`);
  assert.equal(await cell(page, 'llama-3.1-8b', 'Format'), expected.rows.find((r) => r.id === 'llama-3.1-8b').format);
  assert.ok(await page.locator('#wf-list tr[data-fit=too_large]').count() > 0);
  assert.ok(await noOverflow(page), 'no horizontal overflow at 1280 px');
  assert.deepEqual(await axe(page), [], 'the list at 1280 px');
  await screenshot(page, 'what-fits-1280', { fullPage: false });
  // A phone: each model a card, nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await noOverflow(page), 'no horizontal overflow at 390 px');
  assert.equal(await page.locator('#wf-list tbody tr').first().evaluate((tr) => getComputedStyle(tr).display), 'block');
  const box = await page.locator('#wf-list tbody tr').first().boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, 'the first card within the screen');
  assert.deepEqual(await axe(page), [], 'the list at 390 px');
  await page.locator('#wf-counts').evaluate((p) => p.scrollIntoView());
  await screenshot(page, 'what-fits-390', { fullPage: false });
  assert.deepEqual(page.jsErrors, []);
  assert.deepEqual(await cspViolations(page), []);
});

test('the first list: a progress line at once, the page takes input meanwhile, and only the latest request is painted', async () => {
  const page = await openCalculator(context, `${server.url}index.html?gpu=rtx4090&ram_gb=64`);
  await page.click('#what-fits-open');
  // The worker prepares the catalog (1-3 s): said at once, no rows yet.
  const now = () => page.evaluate(() => ({ busy: document.getElementById('what-fits').getAttribute('aria-busy'),
    progress: document.getElementById('wf-progress').hidden ? '' : document.getElementById('wf-progress').textContent,
    painted: performance.getEntriesByName('vramcalc:what-fits').length }));
  const opened = await now();
  assert.match(opened.progress, /^Sizing every model of the catalog for your machine/);
  assert.deepEqual([opened.busy, opened.painted], ['true', 0]);
  // The page's own thread is free: the RAM box takes a new value before that list is answered (the locator's fill
  // does not wait for the page to settle, as the harness's page.fill does).
  await page.locator('#ram-gb').fill('32');
  const typed = await now();
  assert.deepEqual([typed.busy, typed.painted], ['true', 0], 'the first list is still on its way');
  await settledList(page);
  assert.deepEqual(await shownIds(page), ids(listed('--gpu', 'rtx4090', '--ram-gb', '32')));
  assert.equal(await page.locator('#wf-progress').isVisible(), false);
  // The 64 GB list, answered meanwhile, was never painted: one list reached the screen.
  assert.equal(await page.evaluate(() => performance.getEntriesByName('vramcalc:what-fits').length), 1);
  assert.deepEqual(page.jsErrors, []);
});

test('the order and the filters are the core\'s: each change gives the CLI\'s rows for the same request', async () => {
  const page = await openList('gpu=rtx4090&ram_gb=64');
  await page.click('#wf-list th button[data-sort=speed]');
  await settledList(page);
  assert.deepEqual(await shownIds(page), ids(listed('--gpu', 'rtx4090', '--ram-gb', '64', '--sort', 'speed')));
  assert.equal(await page.getAttribute('#wf-list th.wf-speed', 'aria-sort'), 'descending');
  assert.equal(await page.getAttribute('#wf-list th.wf-gpu', 'aria-sort'), 'none');
  assert.equal(await page.inputValue('#wf-sort'), 'speed');
  await page.selectOption('#wf-family', 'Qwen3');
  await page.selectOption('#wf-moe', 'true');
  await settledList(page);
  const qwen = listed('--gpu', 'rtx4090', '--ram-gb', '64', '--sort', 'speed', '--family', 'Qwen3', '--moe', 'true');
  assert.deepEqual(await shownIds(page), ids(qwen));
  assert.ok(qwen.rows.length > 1 && qwen.rows.length < 20);
  assert.equal(await page.locator('#wf-steps').innerText(), `Filters: ${qwen.filter_steps.join('; ')}.`);
  await page.fill('#wf-min_tps', '100');
  await settledList(page);
  const fast = listed('--gpu', 'rtx4090', '--ram-gb', '64', '--sort', 'speed', '--family', 'Qwen3', '--moe', 'true', '--min-tps', '100');
  assert.deepEqual(await shownIds(page), ids(fast));
  // Filters that leave nothing say which step emptied the list; no rows stay.
  await page.fill('#wf-min_tps', '5000');
  await settledList(page);
  const none = listed('--gpu', 'rtx4090', '--ram-gb', '64', '--family', 'Qwen3', '--moe', 'true', '--min-tps', '5000');
  assert.equal(none.empty.field, 'filters');
  assert.match(await page.locator('#wf-empty').innerText(), new RegExp(`^${none.empty.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.equal(await page.locator('#wf-list tbody tr').count(), 0);
  await page.click('#wf-reset');
  await settledList(page);
  // Serving on vLLM: the intent switch; its rows are the CLI's, without the RAM column.
  await page.click('#wf-intents button[data-intent=serve]');
  await settledList(page);
  const serve = listed('--intent', 'serve', '--gpu', 'rtx4090', '--ram-gb', '64', '--sort', 'speed');
  assert.deepEqual(await shownIds(page), ids(serve));
  assert.equal(await page.locator('#wf-list th.wf-ram').isVisible(), false);
  // A bad number names its filter, in the core's words, and no rows stay.
  await page.click('#wf-intents button[data-intent=chat]');
  await page.fill('#wf-seq', '0');
  await settledList(page);
  // The CLI's words for the same request (exit 2), led on the page by the field's label, as every error of the page.
  let words = '';
  try {
    listed('--gpu', 'rtx4090', '--ram-gb', '64', '--seq', '0');
  } catch (e) {
    words = e.stderr.trim().replace(/^vramcalc: error: job\.seq: /, '');
  }
  assert.equal(words, 'must be between 1 and 100000000, got 0');
  assert.equal(await page.locator('#wf-error').innerText(), `Sequence length: ${words}`);
  assert.equal(await page.getAttribute('#wf-seq', 'aria-invalid'), 'true');
  assert.equal(await page.locator('#wf-list tbody tr').count(), 0);
  assert.deepEqual(page.jsErrors, []);
});

test('one click on a row opens that model\'s answer with the row\'s format, context and machine: the same numbers', async () => {
  const page = await openList('gpu=rtx4090&ram_gb=64');
  const expected = listed('--gpu', 'rtx4090', '--ram-gb', '64');
  for (const id of ['gpt-oss-120b', 'llama-3.1-70b']) {
    const row = expected.rows.find((r) => r.id === id);
    await page.locator(`#wf-list tr[data-id="${id}"] [data-label=Speed]`).click();
    assert.equal(await page.locator('#results').isVisible(), true);
    assert.equal(await page.locator('#verdict').innerText(), row.verdict);
    assert.equal(await page.locator('#command').innerText(), row.command);
    assert.equal(single(id, row.job).verdict.text, row.verdict);  // the CLI's own answer for the row's job agrees
    const q = await waitForState(page, 'dtype', row.dtype);
    assert.equal(q.get('model'), id);
    assert.equal(q.get('seq'), String(row.context));
    assert.equal(q.get('view'), null);
    // Back: the list again, as it was.
    await page.goBack();
    await settledList(page);
    assert.equal(await page.locator('#what-fits').isVisible(), true);
    assert.deepEqual(await shownIds(page), ids(expected));
  }
  // Serving: the row opens the Serve intent's answer for its job (vLLM, its format, 16 users × 8,192).
  await page.click('#wf-intents button[data-intent=serve]');
  await settledList(page);
  const serve = listed('--intent', 'serve', '--gpu', 'rtx4090', '--ram-gb', '64');
  const row = serve.rows.find((r) => r.id === 'qwen3-8b');
  await page.locator('#wf-list tr[data-id="qwen3-8b"] .wf-open').click();
  assert.equal(await page.locator('#verdict').innerText(), single('qwen3-8b', row.job).verdict.text);
  assert.equal(await page.locator('#serving-view').innerText(), `${row.fit_text}; does not fit`);  // the row's own words: the users' KV against the pool
  assert.equal(row.fit, 'too_large');
  assert.equal(await page.getAttribute('#intents button[data-intent=serve]', 'aria-pressed'), 'true');
  // Fine-tuning: LoRA on the Fine-tune intent's recipe; the answer's verdict holds the row's need.
  await page.goBack();
  await settledList(page);
  await page.click('#wf-intents button[data-intent=finetune]');
  await settledList(page);
  const tune = listed('--intent', 'finetune', '--gpu', 'rtx4090', '--ram-gb', '64').rows.find((r) => r.id === 'llama-3.1-8b');
  await page.locator('#wf-list tr[data-id="llama-3.1-8b"] .wf-open').click();
  const verdict = await page.locator('#verdict').innerText();
  assert.equal(verdict, single('llama-3.1-8b', tune.job).verdict.text);
  assert.ok(verdict.includes(`${tune.gpu.need_text} of `), `${verdict} holds ${tune.gpu.need_text}`);
  assert.equal(await page.inputValue('#mode'), tune.mode);
  assert.equal(await page.getAttribute('#intents button[data-intent=fine_tune]', 'aria-pressed'), 'true');
  assert.deepEqual(page.jsErrors, []);
});

test('the link restores the view: intent, order, filters, context and runtime', async () => {
  const q = { gpu: 'rtx3090', gpus: '2', ram_gb: '128', view: 'what-fits', wf_sort: 'headroom', wf_family: 'Llama 3',
    wf_engine: 'ollama', wf_seq: '16384' };
  // The fragment as the page writes it (link.js), made in a page of the calculator.
  const maker = await context.newPage();
  await maker.goto(`${server.url}index.html`);
  const fragment = await maker.evaluate(async (state) => (await import('./link.js')).encodeState(new URLSearchParams(state)), q);
  await maker.close();
  const page = await openCalculator(context, `${server.url}index.html#${fragment}`);
  await settledList(page);
  assert.equal(await page.locator('#what-fits').isVisible(), true);
  assert.equal(await page.inputValue('#wf-sort'), 'headroom');
  assert.equal(await page.inputValue('#wf-family'), 'Llama 3');
  assert.equal(await page.inputValue('#wf-engine'), 'ollama');
  assert.equal(await page.inputValue('#wf-seq'), '16384');
  const expected = listed('--gpu', 'rtx3090', '--gpus', '2', '--ram-gb', '128', '--sort', 'headroom', '--family', 'Llama 3',
    '--engine', 'ollama', '--seq', '16384');
  assert.deepEqual(await shownIds(page), ids(expected));
  assert.match(await page.locator('#wf-machine').innerText(), /^Your machine: 2 × RTX 3090 24GB \+ 128 GB RAM/);
  // What the visitor changes is in the address, and a reload shows it again.
  await page.selectOption('#wf-size', 'large');
  await waitForState(page, 'wf_size', 'large');
  await page.reload();
  await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
  await settledList(page);
  assert.equal(await page.inputValue('#wf-size'), 'large');
  assert.deepEqual(await shownIds(page), ids(listed('--gpu', 'rtx3090', '--gpus', '2', '--ram-gb', '128', '--sort', 'headroom',
    '--family', 'Llama 3', '--engine', 'ollama', '--seq', '16384', '--size', 'large')));
  assert.deepEqual(page.jsErrors, []);
});

test('bad input: no machine says what to set; a pasted config that fails is named beside it and the list stays', async () => {
  const page = await openList('model=llama-3-8b');
  assert.match(await page.locator('#wf-empty').innerText(), /^say what your machine has/);
  assert.equal(await page.locator('#wf-list tbody tr').count(), 0);
  // A config.json the core cannot read: the list of the catalog stays, and the error names the config.
  const bad = await openList(`gpu=rtx4090&config=${encodeURIComponent('{"model_type": "mamba3", "hidden_size": 64}')}`);
  assert.match(await bad.locator('#wf-config').innerText(), /^pasted config\.json: config\.model_type: /);
  assert.ok(await bad.locator('#wf-list tbody tr').count() > 100);
  // A good one is listed, marked as yours.
  const config = JSON.stringify(JSON.parse(execFileSync(cli, ['--list', '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 }))
    .models.find((m) => m.id === 'qwen3-8b').config);
  const good = await openList(`gpu=rtx4090&config=${encodeURIComponent(config)}`);
  assert.equal(await good.locator('#wf-list tr:has(.wf-tag)').count(), 1);
  assert.match(await good.locator('#wf-config').innerText(), /is in the list/);
  assert.deepEqual([...page.jsErrors, ...bad.jsErrors, ...good.jsErrors], []);
});

test('offline: after one visit the list works with the server stopped', async () => {
  const own = await startServer();
  const ctx = await launchBrowser();
  try {
    const page = await openCalculator(ctx, `${own.url}index.html?gpu=rtx4090&ram_gb=64`);
    await waitForController(page);
    await page.click('#what-fits-open');
    await settledList(page);
    const online = await shownIds(page);
    await own.close();
    await page.reload();
    await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
    await settledList(page);
    assert.equal(stateOf(page.url()).get('view'), 'what-fits');
    assert.deepEqual(await shownIds(page), online);
    assert.deepEqual(online, ids(listed('--gpu', 'rtx4090', '--ram-gb', '64')));
  } finally {
    await ctx.close();
    await own.close();
  }
});

test('<vram-calc view="what-fits">: the first rows for the attributes\' machine and intent, as the CLI lists them', async () => {
  widgetPages.set('/post.html', WIDGET_PAGE('view="what-fits" gpu="rtx4090" ram-gb="64" rows="3"'));
  const page = watchPage(await context.newPage());
  await page.goto(`${server.url}post.html`);
  await page.waitForFunction(() => document.getElementById('w').dataset.rows);
  const expected = listed('--gpu', 'rtx4090', '--ram-gb', '64');
  const shown = () => page.locator('#w li').evaluateAll((items) => items.map((li) => li.dataset.id));
  assert.deepEqual(await shown(), ids(expected).slice(0, 3));
  assert.match(await page.locator('#w .wf-machine').innerText(), new RegExp(`^${expected.machine.text.replace(/[+()]/g, '\\$&')}`));
  assert.equal(await page.locator('#w .wf-counts').innerText(), `${expected.runnable} of ${expected.count} models run; the first 3 by size:`);
  // The intent and the order as attributes; a bad rows value names the attribute.
  await page.evaluate(() => { const w = document.getElementById('w'); w.setAttribute('intent', 'serve'); w.setAttribute('sort', 'speed'); });
  const serve = listed('--intent', 'serve', '--gpu', 'rtx4090', '--ram-gb', '64', '--sort', 'speed');
  await page.waitForFunction((id) => document.getElementById('w').shadowRoot.querySelector('li')?.dataset.id === id, serve.rows[0].id);
  assert.deepEqual(await shown(), ids(serve).slice(0, 3));
  await page.evaluate(() => document.getElementById('w').setAttribute('rows', 'lots'));
  await page.waitForFunction(() => document.getElementById('w').dataset.error);
  assert.equal(await page.locator('#w .error').innerText(), "rows: must be a whole number from 1 to 50, got 'lots'");
  assert.equal(await page.locator('#w .wf').isVisible(), false);
  assert.deepEqual(page.jsErrors, []);
  assert.deepEqual(await cspViolations(page), []);
});
