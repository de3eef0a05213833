// "Checkpoint (exact size)" on the page: a safetensors or GGUF header, or the
// Hub's index / header by Range requests, makes the weights exact, and the
// page shows what the native CLI gives with --checkpoint. A bad file names its
// field under the input and leaves no figures of its own.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { offlineCalculator, openCalculator, screenshot, waitForText, settled, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const fixturePath = (name) => path.join(repo, 'tests', 'fixtures', name);
const fixture = (name) => readFileSync(fixturePath(name), 'utf8');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const env = offlineCalculator();

const text = (page, selector) => page.locator(selector).first().innerText();
const native = (...args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));
const weightsTerm = (answer) => answer.terms.find((t) => t.key === 'weights');
const grouped = (n) => n.toLocaleString('en-US');

async function pasteConfig(page, name) {
  await page.click('[role=tab][data-source=paste]');
  await page.fill('#config-text', fixture(name));
  await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('pasted config.json'));
}

// The page's weights row, total and weights-source line against a CLI answer.
async function assertShows(page, expected) {
  const w = weightsTerm(expected);
  assert.equal(await text(page, '#breakdown tr[data-term=weights] td.num'), w.text);
  assert.equal(await text(page, '#breakdown tr[data-term=weights] td.how'), w.why);
  assert.equal(await text(page, '#total'), expected.total_text);
  assert.equal(await page.getAttribute('#weights-source', 'data-source'), expected.weights_source);
}

test('safetensors header: exact weights as the CLI gives with --checkpoint, per-dtype table, comparison', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await pasteConfig(page, 'tiny-llama.config.json');
  await page.setInputFiles('#checkpoint-file', fixturePath('tiny-llama.safetensors-header'));
  await page.waitForSelector('#checkpoint-result:not([hidden])');
  await settled(page);
  const expected = native('--config', fixturePath('tiny-llama.config.json'), '--checkpoint', fixturePath('tiny-llama.safetensors-header'));
  assert.equal(expected.weights_source, 'exact');
  await assertShows(page, expected);
  assert.match(await text(page, '#weights-source'), /^Weights: exact/);
  assert.match(await text(page, '#weights-source'), /exact from the safetensors header/);
  const summary = await text(page, '#checkpoint-summary');
  assert.match(summary, /^tiny-llama\.safetensors-header: safetensors header/);
  assert.ok(summary.includes(`weights exactly ${grouped(weightsTerm(expected).bytes)} bytes`), summary);
  assert.match(summary, /12 tensors/);
  assert.deepEqual(await page.locator('#checkpoint-dtypes tbody tr').first().locator('th, td').allInnerTexts(),
    ['BF16', '12', '623,360', '1,246,720']);
  assert.match(await text(page, '#checkpoint-compare'), /difference 0, \+0\.00 %/);
  // Remove: the same config again, weights from the job (as the CLI without --checkpoint)
  await page.click('#checkpoint-remove');
  await page.waitForSelector('#checkpoint-result', { state: 'hidden' });
  await settled(page);
  await assertShows(page, native('--config', fixturePath('tiny-llama.config.json')));
  assert.deepEqual(page.jsErrors, []);
});

test('GGUF header with llama.cpp: the same figures as the CLI', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?engine=llamacpp`);
  await pasteConfig(page, 'tiny-llama.config.json');
  await page.setInputFiles('#checkpoint-file', fixturePath('tiny-llama.gguf-header'));
  await page.waitForSelector('#checkpoint-result:not([hidden])');
  await settled(page);
  const expected = native('--config', fixturePath('tiny-llama.config.json'), '--checkpoint', fixturePath('tiny-llama.gguf-header'),
    '--engine', 'llamacpp');
  await assertShows(page, expected);
  assert.match(await text(page, '#checkpoint-summary'), /GGUF header v\d/);
  await screenshot(page, 'checkpoint-gguf');
  assert.deepEqual(page.jsErrors, []);
});

test('a malformed file: its field named under the input, no figures of its own, the last good ones dimmed', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await pasteConfig(page, 'tiny-llama.config.json');
  await page.setInputFiles('#checkpoint-file', fixturePath('tiny-llama.safetensors-header'));
  await page.waitForSelector('#checkpoint-result:not([hidden])');
  const bad = '{"w": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 7]}}';
  await page.setInputFiles('#checkpoint-file', { name: 'broken.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(bad) });
  await waitForText(page, '#checkpoint-file-error', /^checkpoint\.w\.data_offsets: /);
  assert.equal(await page.getAttribute('#checkpoint-file', 'aria-invalid'), 'true');
  assert.equal(await page.isHidden('#checkpoint-result'), true);
  assert.equal(await text(page, '#checkpoint-summary'), '');
  assert.match(await text(page, '#error'), /checkpoint\.w\.data_offsets: .*\(the figures below are the last valid ones\)/);
  assert.equal(await page.evaluate(() => document.getElementById('output').classList.contains('stale')), true);
  // a job change does not bring fresh-looking figures back while the file is bad
  await page.fill('#batch', '2');
  assert.equal(await page.evaluate(() => document.getElementById('output').classList.contains('stale')), true);
  // Remove clears the error and detaches: fresh figures without a checkpoint
  await page.click('#checkpoint-remove');
  await settled(page);
  assert.equal(await page.isVisible('#checkpoint-file-error'), false);
  await assertShows(page, native('--config', fixturePath('tiny-llama.config.json'), '--batch', '2'));
  // a GGUF whose header does not end within the first 16 MiB read says so plainly
  const big = Buffer.alloc(17 * 1024 * 1024);
  big.write('GGUF', 0, 'latin1');
  big.writeUInt32LE(3, 4);
  big.writeBigUInt64LE(1n, 8);    // tensors
  big.writeBigUInt64LE(1n, 16);   // KV pairs
  big.writeBigUInt64LE(12n, 24);  // key length
  big.write('general.name', 32, 'latin1');
  big.writeUInt32LE(8, 44);       // string value
  big.writeBigUInt64LE(BigInt(20 * 1024 * 1024), 48);
  await page.setInputFiles('#checkpoint-file', { name: 'huge.gguf', mimeType: 'application/octet-stream', buffer: big });
  await waitForText(page, '#checkpoint-file-error', /first 16 MiB/);
  assert.equal(await page.isHidden('#checkpoint-result'), true);
  // choosing another model drops the error and any checkpoint with it
  await page.click('[role=tab][data-source=catalog]');
  await settled(page);
  assert.equal(await page.isVisible('#checkpoint-file-error'), false);
  assert.equal(await page.getAttribute('#weights-source', 'data-source'), 'job');
  assert.deepEqual(page.jsErrors, []);
});

test('Hub: the index gives 16060522496 bytes for Meta-Llama-3-8B, as the CLI with --checkpoint', async () => {
  await env.context.route('https://huggingface.co/meta-llama/Meta-Llama-3-8B/resolve/main/config.json',
    (route) => route.fulfill({ status: 200, contentType: 'application/json', body: fixture('llama-3-8b.config.json') }));
  await env.context.route('https://huggingface.co/meta-llama/Meta-Llama-3-8B/resolve/main/model.safetensors.index.json',
    (route) => route.fulfill({ status: 200, contentType: 'application/json', body: fixture('llama-3-8b.safetensors.index.json') }));
  const page = await openCalculator(env.context, `${env.server.url}index.html?hf=meta-llama/Meta-Llama-3-8B`);
  await page.waitForSelector('#checkpoint-hub:not([hidden])');
  await page.click('#checkpoint-hub');
  await page.waitForSelector('#checkpoint-result:not([hidden])');
  await settled(page);
  const expected = native('--config', fixturePath('llama-3-8b.config.json'), '--checkpoint', fixturePath('llama-3-8b.safetensors.index.json'));
  assert.equal(weightsTerm(expected).bytes, 16060522496);
  await assertShows(page, expected);
  assert.match(await text(page, '#checkpoint-summary'), /16,060,522,496 bytes/);
  assert.match(await text(page, '#checkpoint-summary'), /model\.safetensors\.index\.json \(Hub\)/);
  // axe stays clean (the page as the layout test checks it, and the model panel on a phone)
  // and nothing overflows at 390 px with the checkpoint shown
  await page.evaluate(axeSource);
  const axe = (context) => page.evaluate(async (where) => (await window.axe.run(where, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`), context);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axe('html'), [], scheme);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  assert.deepEqual(await axe('#controls'), [], 'model panel at 390 px');
  await screenshot(page, 'checkpoint-hub-390');
  assert.deepEqual(page.jsErrors, []);
});

test('Hub: no index, the single file\'s header by two Range requests; gated and missing say so', async () => {
  const file = readFileSync(fixturePath('tiny-llama.safetensors-header'));  // the first 8 + N bytes of the file
  const ranges = [];
  await env.context.route('https://huggingface.co/Org/Tiny-Llama/resolve/main/config.json',
    (route) => route.fulfill({ status: 200, contentType: 'application/json', body: fixture('tiny-llama.config.json') }));
  await env.context.route('https://huggingface.co/Org/Tiny-Llama/resolve/main/model.safetensors.index.json',
    (route) => route.fulfill({ status: 404, body: 'Entry not found' }));
  await env.context.route('https://huggingface.co/Org/Tiny-Llama/resolve/main/model.safetensors', (route) => {
    const range = route.request().headers().range;
    ranges.push(range);
    const [, from, to] = range.match(/^bytes=(\d+)-(\d+)$/).map(Number);
    route.fulfill({ status: 206, headers: { 'content-range': `bytes ${from}-${to}/99999999` }, body: file.subarray(from, to + 1) });
  });
  const page = await openCalculator(env.context, `${env.server.url}index.html?hf=Org/Tiny-Llama`);
  await page.waitForSelector('#checkpoint-hub:not([hidden])');
  await page.click('#checkpoint-hub');
  await page.waitForSelector('#checkpoint-result:not([hidden])');
  await settled(page);
  assert.deepEqual(ranges, ['bytes=0-7', `bytes=8-${file.length - 1}`]);
  await assertShows(page, native('--config', fixturePath('tiny-llama.config.json'), '--checkpoint', fixturePath('tiny-llama.safetensors-header')));
  await env.context.route('https://huggingface.co/Org/Tiny-Llama/resolve/main/model.safetensors.index.json',
    (route) => route.fulfill({ status: 403, body: 'gated' }));
  await page.click('#checkpoint-hub');
  await waitForText(page, '#checkpoint-file-error', /^checkpoint: Org\/Tiny-Llama is gated or private/);
  await env.context.unroute('https://huggingface.co/Org/Tiny-Llama/resolve/main/model.safetensors.index.json');
  await env.context.unroute('https://huggingface.co/Org/Tiny-Llama/resolve/main/model.safetensors');
  await page.click('#checkpoint-hub');  // now the catch-all: offline
  await waitForText(page, '#checkpoint-file-error', /could not reach huggingface\.co/);
  assert.equal(await page.isHidden('#checkpoint-result'), true);
  // the Hub's 404/403 and the refused connection are logged by Chromium, not errors of the page
  assert.deepEqual(page.jsErrors.filter((e) => !/^Failed to load resource/.test(e)), []);
});
