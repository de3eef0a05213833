// The core in a Web Worker (issue 25): typing never waits on an estimate, a
// newer input supersedes the older one (a worker stuck on a superseded answer
// is replaced, and the page says so), a job with no answer is stopped with an
// error, and the figures on screen are never passed off as the new input's.
// A slow core call is made here by a wrapper around core-worker.js that holds
// the worker (a busy loop) for chosen batch sizes.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const nativeTotal = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' })).total_text;

// batch 7: the worker is held 3 s (over the 1.5 s after which a superseded answer's worker is replaced);
// batch 9: 12 s (over the 10 s limit for any answer).
const slowWorker = `importScripts('core-worker.js?real');
const real = self.onmessage;
self.onmessage = (e) => {
  // An estimate's job, or the job of the one answer's head (its question's job; issue 33).
  const call = e.data.type === 'call' ? e.data : null;
  const job = call && call.method.startsWith('estimate') ? call.args[0]
    : call && call.method === 'answer' && (call.args[0].parts ?? ['head']).includes('head') ? call.args[0].job : null;
  const hold = { 7: 3000, 9: 12000 }[job && job.batch];
  if (hold) { const end = Date.now() + hold; while (Date.now() < end) {} }
  return real(e);
};`;

// The page answers a small job's totals on its own thread once that core has started (core-local.js),
// which would take these jobs away from the worker: here it never starts, so every answer is the worker's.
const noLocalCore = `export const LOCAL_MS = 16;
export function localCore() { return { ready: new Promise(() => {}), call: () => undefined }; }
export function workerAnswered() {}`;

let server, context;
before(async () => {
  server = await startServer(undefined, { override: (p, url) => {
    if (p === '/core-worker.js' && url.search !== '?real') return { type: 'text/javascript', body: slowWorker };
    if (p === '/core-local.js') return { type: 'text/javascript', body: noLocalCore };
    return undefined;
  } });
  context = await launchBrowser();
});
after(async () => {
  await context?.close();
  await server?.close();
});

// Sets the batch box as typing does (one input event), without waiting for the answer.
const typeBatch = (page, value) => page.evaluate((v) => {
  const batch = document.getElementById('batch');
  batch.value = v;
  batch.dispatchEvent(new Event('input', { bubbles: true }));
}, value);

test('a slow answer: the page keeps painting, the old figures stay dimmed and busy; a newer input replaces the stuck worker', async () => {
  const page = await openCalculator(context, `${server.url}index.html?model=llama-3-8b&mode=train`);
  const before = await page.locator('#total').innerText();
  await typeBatch(page, '7');
  // The worker is held, the page is not: a frame is painted while the answer is on its way, and the figures
  // on screen are the last ones, marked busy and dimmed, not shown as the new input's.
  const during = await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve({
    busy: document.getElementById('output').getAttribute('aria-busy'),
    pending: document.getElementById('output').classList.contains('pending'),
    total: document.getElementById('total').textContent,
  })))));
  assert.deepEqual(during, { busy: 'true', pending: true, total: before });
  // A newer input while batch 7 still holds the worker: that worker is terminated, a fresh one answers batch 2.
  await typeBatch(page, '2');
  await page.waitForSelector('#output:not([aria-busy])', { timeout: 10000 });
  assert.equal(await page.locator('#total').innerText(), nativeTotal(['--model', 'llama-3-8b', '--mode', 'train', '--batch', '2']));
  assert.match(await page.locator('#core-status').innerText(), /^An earlier input took over 1\.5 s; the calculator was restarted for the newest one\.$/);
  assert.equal(await page.evaluate(() => document.getElementById('output').className), '');
  // The next input clears the note; the fresh worker answers as the old one did.
  await page.fill('#batch', '3');
  assert.equal(await page.isVisible('#core-status'), false);
  assert.equal(await page.locator('#total').innerText(), nativeTotal(['--model', 'llama-3-8b', '--mode', 'train', '--batch', '3']));
  assert.deepEqual(page.jsErrors, []);
});

test('an answer that never comes is stopped after 10 s: an error, the last good figures dimmed, and the next input works', async () => {
  const page = await openCalculator(context, `${server.url}index.html?model=llama-3-8b&mode=train`);
  const before = await page.locator('#total').innerText();
  await typeBatch(page, '9');
  await page.waitForFunction(() => document.getElementById('core-status').textContent.startsWith('Still computing'), null, { timeout: 5000 });
  await page.waitForFunction(() => !document.getElementById('error').hidden, null, { timeout: 20000 });
  assert.match(await page.locator('#error').innerText(), /^job: no answer after 10 s; the calculator stopped this job \(the figures below are the last valid ones\)$/);
  assert.match(await page.locator('#core-status').innerText(), /^A job ran for 10 s without an answer and was stopped\.$/);
  assert.equal(await page.locator('#total').innerText(), before);
  assert.match(await page.getAttribute('#output', 'class'), /\bstale\b/);
  await page.fill('#batch', '4');
  assert.equal(await page.isVisible('#error'), false);
  assert.equal(await page.locator('#total').innerText(), nativeTotal(['--model', 'llama-3-8b', '--mode', 'train', '--batch', '4']));
});

test('the widget answers from the same worker: a changed attribute supersedes the answer on its way', async () => {
  const page = await context.newPage();
  await page.goto(`${server.url}embed-demo.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total));
  const states = await page.evaluate(async () => {
    const w = document.getElementById('train');
    const seen = [];
    w.setAttribute('batch', '7');  // held 3 s
    await new Promise((r) => requestAnimationFrame(() => r()));
    seen.push({ busy: w.getAttribute('aria-busy'), total: w.dataset.total });
    w.setAttribute('batch', '2');
    await new Promise((resolve) => w.addEventListener('vramcalc-update', resolve, { once: true }));
    seen.push({ busy: w.getAttribute('aria-busy'), total: w.dataset.total });
    return seen;
  });
  assert.deepEqual(states, [
    { busy: 'true', total: nativeTotal(['--model', 'llama-3-8b', '--mode', 'train']) },
    { busy: null, total: nativeTotal(['--model', 'llama-3-8b', '--mode', 'train', '--batch', '2']) },
  ]);
});
