// A small job's totals on the page's own thread (web/core-local.js): once that
// core has started, an input's new totals are on the page when its event
// handler returns (so the next frame paints them), equal to the native CLI's;
// with a checkpoint attached they come from the worker, which holds it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { offlineCalculator, openCalculator, settled, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const native = (...args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));
const fixturePath = (name) => path.join(repo, 'tests', 'fixtures', name);
const env = offlineCalculator();

// Types a value as one input event; what the page shows right after the handler returned.
const typeNow = (page, id, value) => page.evaluate(([id, value]) => {
  const box = document.getElementById(id);
  box.value = value;
  box.dispatchEvent(new Event('input', { bubbles: true }));
  return {
    total: document.getElementById('total').textContent,
    training: document.querySelector('#card-training [data-total]').textContent,
    pending: document.getElementById('output').classList.contains('pending'),
  };
}, [id, value]);

test('an input\'s new totals are on the page when its handler returns, as the CLI gives them', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen2.5-7b`);
  await page.evaluate(async () => (await import('./vramcalc-client.js')).startLocalCore());
  for (const batch of ['3', '5', '12']) {
    const shown = await typeNow(page, 'batch', batch);
    assert.equal(shown.total, native('--model', 'qwen2.5-7b', '--batch', batch).total_text, `batch ${batch}`);
    assert.equal(shown.training, native('--model', 'qwen2.5-7b', '--batch', batch, '--mode', 'train').total_text);
    assert.equal(shown.pending, false);
  }
  // The panels after the totals still come from the worker, for the same job.
  await settled(page);
  assert.match(await page.getAttribute('#chart-seq svg', 'aria-label'), /./);
  assert.deepEqual(page.jsErrors, []);
});

test('with a checkpoint attached the totals come from the worker, which holds it', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.evaluate(async () => (await import('./vramcalc-client.js')).startLocalCore());
  await page.click('[role=tab][data-source=paste]');
  await page.fill('#config-text', readFileSync(fixturePath('tiny-llama.config.json'), 'utf8'));
  await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('pasted config.json'));
  await page.setInputFiles('#checkpoint-file', fixturePath('tiny-llama.safetensors-header'));
  await page.waitForSelector('#checkpoint-result:not([hidden])');
  await settled(page);
  const before = await page.locator('#total').textContent();
  const shown = await typeNow(page, 'batch', '6');
  assert.deepEqual([shown.total, shown.pending], [before, true], 'the last figures stay, dimmed, until the worker answers');
  await settled(page);
  const expected = native('--config', fixturePath('tiny-llama.config.json'), '--checkpoint', fixturePath('tiny-llama.safetensors-header'),
    '--batch', '6');
  assert.equal(expected.weights_source, 'exact');
  assert.equal(await page.locator('#total').textContent(), expected.total_text);
  assert.deepEqual(page.jsErrors, []);
});
