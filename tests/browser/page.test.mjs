// The calculator page in headless Chromium: numbers shown equal the core's,
// inputs recompute at once, bad input shows an inline error, state lives in the URL.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { offlineCalculator, openCalculator, screenshot, waitForText, waitForState, stateOf, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const fixture = (name) => readFileSync(path.join(repo, 'tests', 'fixtures', name), 'utf8');
const env = offlineCalculator();

const text = (page, selector) => page.locator(selector).first().innerText();
const termText = (page, key) => text(page, `#breakdown tr[data-term=${key}] td.num`);

function nativeTotal(args) {
  return JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' })).total_text;
}

test('default page: Llama 3 8B, inference beside full training, seed numbers', async () => {
  const page = await openCalculator(env.context, env.server.url);
  assert.equal(await termText(page, 'weights'), '16.06 GB');  // 8.03 B × 2 bytes
  assert.equal(await text(page, '#card-inference [data-total]'), '18.87 GB');
  assert.equal(await text(page, '#card-training [data-total]'), nativeTotal(['--model', 'llama-3-8b', '--mode', 'train']));
  // no GPU chosen: the core's headline recommends one (the fewest GPUs with 10 % free)
  const verdict = JSON.parse(execFileSync(cli, ['--model', 'llama-3-8b', '--json'], { encoding: 'utf8' })).verdict;
  assert.equal(await text(page, '#verdict'), verdict.text);
  assert.match(verdict.text, /^needs 18\.87 GB on one GPU → 1 × /);
  assert.equal(await text(page, '#card-inference [data-sub]'), verdict.text);  // it says "on one GPU" itself
  assert.equal(await page.locator('#fits tr[data-gpu=rtx4090] td').nth(2).innerText(), '✓ fits');
  assert.deepEqual(page.jsErrors, []);
});

test('changing inputs recomputes immediately and matches the native CLI', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.selectOption('#mode', 'train');
  const trainTotal = nativeTotal(['--model', 'llama-3-8b', '--mode', 'train']);
  assert.equal(await text(page, '#total'), trainTotal);
  assert.equal(await text(page, '#ratio'), JSON.parse(execFileSync(cli, ['--model', 'llama-3-8b', '--mode', 'train', '--json'],
    { encoding: 'utf8' })).ratio_sentence);
  assert.match(await text(page, '#ratio'), /^Raw weights: 16\.06 GB \(every parameter in BF16\)\. This job needs \d+\.\d × the raw weights\.$/);
  assert.match(await text(page, '#notes'), /16 bytes of model state per parameter/);
  await page.fill('#batch', '4');
  await page.selectOption('#checkpointing', 'full');
  await page.fill('#gpus', '8');
  await page.selectOption('#zero', '3');
  const expected = nativeTotal(['--model', 'llama-3-8b', '--mode', 'train', '--batch', '4', '--checkpointing', 'full',
    '--gpus', '8', '--zero', '3']);
  assert.equal(await text(page, '#total'), expected);
  assert.match(await text(page, '#total-note'), /over 8 GPUs \(DP 8 × TP 1 × PP 1\)/);
  // the bar has one segment per non-zero term of the core's answer
  const nonZero = JSON.parse(execFileSync(cli, ['--model', 'llama-3-8b', '--mode', 'train', '--batch', '4', '--checkpointing', 'full',
    '--gpus', '8', '--zero', '3', '--json'], { encoding: 'utf8' })).terms.filter((t) => t.bytes > 0).length;
  assert.equal(await page.locator('#bar .seg').count(), nonZero);
  // the state is in the URL's fragment (no server sees it), and opening that URL reproduces it
  const url = (await waitForState(page, 'batch', '4')) && page.url();
  assert.equal(stateOf(url).get('mode'), 'train');
  assert.equal(new URL(url).search, '');
  const again = await openCalculator(env.context, url);
  assert.equal(await text(again, '#total'), expected);
  assert.equal(await again.inputValue('#batch'), '4');
  await screenshot(page, 'page-training');
});

test('bad input shows the error under its field and keeps the last good result dimmed, never NaN', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.fill('#batch', '-1');
  assert.match(await text(page, '#error'), /^Batch \(per GPU\): must be between 1 and/);
  assert.equal(await page.getAttribute('#batch', 'aria-invalid'), 'true');
  // under the field, in plain words, tied to it for screen readers
  assert.match(await text(page, '#batch-error'), /^must be between 1 and/);
  assert.match(await page.getAttribute('#batch', 'aria-describedby'), /\bbatch-error\b/);
  // the last good result stays, dimmed and labelled as such
  assert.equal(await page.isVisible('#output'), true);
  assert.match(await page.getAttribute('#output', 'class'), /\bstale\b/);
  assert.match(await text(page, '#error'), /last valid ones/);
  assert.equal(await text(page, '#total'), '18.87 GB');
  await page.fill('#batch', '2');
  assert.equal(await page.isVisible('#error'), false);
  assert.equal(await page.getAttribute('#batch', 'aria-invalid'), null);
  assert.equal(await page.getAttribute('#batch', 'aria-describedby'), null);
  assert.equal(await page.locator('.field-error').count(), 0);
  assert.doesNotMatch(await page.getAttribute('#output', 'class') ?? '', /stale/);
  await page.fill('#seq', '');
  assert.match(await text(page, '#error'), /^Sequence length: needs a number \(the field is empty\)/);
  await page.fill('#seq', '1e12');
  assert.match(await text(page, '#error'), /^Sequence length: must be between/);
  await page.fill('#seq', '4096');
  await page.fill('#gpus', '6');
  await page.fill('#tp', '4');
  assert.match(await text(page, '#error'), /^GPUs: must be a multiple of tp × pp/);
  await page.fill('#tp', '0');
  await page.selectOption('#mode', 'train');
  await page.selectOption('#dtype', 'q4_k_m');
  assert.match(await text(page, '#error'), /^Weights: full training needs/);
  await screenshot(page, 'page-error');
  await page.selectOption('#mode', 'inference');
  const body = await page.locator('body').innerText();
  assert.doesNotMatch(body, /NaN|undefined|Infinity/);
});

test('pasted and dropped config.json, with errors for malformed ones', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.click('[role=tab][data-source=paste]');
  // an empty tab is not an error: a prompt, no red, no stale numbers
  assert.equal(await page.isVisible('#error'), false);
  assert.match(await text(page, '#empty'), /^Paste or drop a config\.json/);
  assert.equal(await page.isVisible('#output'), false);
  assert.equal(await page.locator('[aria-invalid]').count(), 0);
  await page.fill('#config-text', fixture('gpt2.config.json'));
  assert.match(await text(page, '#model-info'), /124\.4 M parameters/);
  assert.equal(await termText(page, 'weights'), '0.25 GB');  // 124,439,808 × 2 bytes
  await page.fill('#config-text', fixture('malformed.config.json'));
  assert.match(await text(page, '#error'), /^config: malformed JSON/);
  await page.fill('#config-text', fixture('unknown-arch.config.json'));
  assert.match(await text(page, '#error'), /^config\.model_type: unknown architecture 'rwkv'/);
  assert.equal(await page.getAttribute('#config-text', 'aria-invalid'), 'true');
  // dropping a file onto the page loads it
  const dataTransfer = await page.evaluateHandle((json) => {
    const dt = new DataTransfer();
    dt.items.add(new File([json], 'config.json', { type: 'application/json' }));
    return dt;
  }, fixture('mixtral-8x7b.config.json'));
  await page.dispatchEvent('#config-text', 'drop', { dataTransfer });
  await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('46.70 B'));
  assert.match(await text(page, '#model-info'), /12\.88 B active per token, 2 of 8 experts/);
  // a pasted config survives in the shareable URL
  const again = await openCalculator(env.context, page.url());
  assert.match(await text(again, '#model-info'), /46\.70 B parameters/);
});

test('Hugging Face id: fetched config, offline and not-found messages', async () => {
  const page = await openCalculator(env.context, env.server.url);
  // Routes are set on the context: once the service worker controls the page, its requests bypass page.route.
  await page.click('[role=tab][data-source=hub]');
  // (an id outside the catalog: a catalog id would fall back to the catalog's config)
  await page.fill('#hub-id', 'someone/not-in-the-catalog');
  await page.click('#hub-fetch');
  await waitForText(page, '#error', /could not reach huggingface\.co/);
  await page.fill('#hub-id', 'mistralai/Mixtral-8x7B-v0.1');
  await env.context.route('https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/resolve/main/config.json',
    (route) => route.fulfill({ status: 200, contentType: 'application/json', body: fixture('mixtral-8x7b.config.json') }));
  await env.context.route('https://huggingface.co/nobody/nothing/resolve/main/config.json',
    (route) => route.fulfill({ status: 404, body: 'Entry not found' }));
  await page.click('#hub-fetch');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('46.70 B'));
  await waitForState(page, 'hf', 'mistralai/Mixtral-8x7B-v0.1');
  await page.fill('#hub-id', 'nobody/nothing');
  await page.click('#hub-fetch');
  await waitForText(page, '#error', /no model nobody\/nothing on the Hub/);
  await page.fill('#hub-id', 'not a model id');
  await page.click('#hub-fetch');
  await waitForText(page, '#error', /is not a model id/);
});

test('model search, export JSON and embed snippet', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.fill('#model-search', 'Mixtral 8x22B');
  // The search chooses after a pause in typing (no busy flag until then): wait for the choice, then read.
  await waitForState(page, 'model', 'mixtral-8x22b');
  await waitForText(page, '#model-info', /Mixtral 8x22B: 140\.63 B parameters/);
  assert.match(await text(page, '#model-info'), /Mixtral 8x22B: 140\.63 B parameters/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(exported.model, 'Mixtral 8x22B');
  assert.equal(exported.estimate.total_text, nativeTotal(['--model', 'mixtral-8x22b']));
  // both jobs: the one chosen and its counterpart
  assert.deepEqual(exported.jobs.map((j) => j.mode), ['inference', 'train']);
  assert.equal(exported.estimates[1].total_text, nativeTotal(['--model', 'mixtral-8x22b', '--mode', 'train']));
  await page.click('#embed');
  const snippet = await page.inputValue('#embed-code');
  assert.match(snippet, /<vram-calc model="mixtral-8x22b">Loading the GPU memory calculator… If this line stays, it could not load on this page: /);
  const src = snippet.match(/<iframe src="(http:\/\/127\.0\.0\.1:\d+\/index\.html\?embed=1#s=[\w-]+)"/)[1];
  assert.equal(stateOf(src).get('model'), 'mixtral-8x22b');
});

test('a catalog that cannot be read is said on the page and in each widget, not a blank page', async () => {
  const { startServer, launchBrowser } = await import('./harness.mjs');
  for (const [body, reason] of [['{"models": [', 'not valid JSON'], ['{"models":[]}', 'not a catalog built by scripts/build.sh']]) {
    const server = await startServer(undefined, { override: (p) => (p === '/models.json' ? { status: 200, type: 'application/json', body } : null) });
    const context = await launchBrowser();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}index.html`);
      await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
      assert.match(await text(page, '#error'), new RegExp(`^The model catalog could not be read \\(models\\.json: ${reason}`));
      const demo = await context.newPage();
      await demo.goto(`${server.url}embed-demo.html`);
      await demo.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.error));
      const errors = await demo.evaluate(() => [...document.querySelectorAll('vram-calc')].map((w) => w.dataset.error));
      for (const e of errors) assert.match(e, new RegExp(`^models\\.json: ${reason}`));
    } finally {
      await context.close();
      await server.close();
    }
  }
});
