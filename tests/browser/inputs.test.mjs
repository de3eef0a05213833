// Inputs before any work (issue 25): the state in the URL fragment (older
// ?query links rewritten), a config too large to share said plainly with the
// file offered instead, drops, pastes and Hub downloads over the core's JSON
// limit refused from their size alone, Hub ids by the Hub's own rules, and
// only JSON kept from the Hub.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { offlineCalculator, openCalculator, waitForText, stateOf, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const nativeTotal = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' })).total_text;
const fixture = (name) => readFileSync(path.join(repo, 'tests', 'fixtures', name), 'utf8');
const env = offlineCalculator();
const text = (page, selector) => page.locator(selector).first().innerText();
const LIMIT = '(the limit for a JSON input is 8000000 bytes';

test('an older ?query link opens, and its state moves to the fragment in the same history entry', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=gemma-2-9b&mode=train&batch=2`);
  assert.equal(await text(page, '#total'), nativeTotal(['--model', 'gemma-2-9b', '--mode', 'train', '--batch', '2']));
  await page.waitForFunction(() => location.search === '' && location.hash.startsWith('#s='));
  assert.deepEqual([...stateOf(page.url())], [['model', 'gemma-2-9b'], ['mode', 'train'], ['batch', '2']]);
  // the same entry: Back leaves the calculator (the tab's first entry), not to the ?query form
  await page.goBack();
  assert.equal(page.url(), 'about:blank');
  // a damaged fragment says so, and shows no figures
  const damaged = await openCalculator(env.context, `${env.server.url}index.html#s=AAAA-not-deflate`);
  assert.match(await text(damaged, '#error'), /^config: the link's state is damaged \(cut short or changed\); ask for the link again$/);
  assert.equal(await damaged.isVisible('#output'), false);
});

test('a config too large for a link: said beside Copy link, the link keeps the job, the config is offered as a file', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.click('[role=tab][data-source=paste]');
  const big = JSON.parse(fixture('gpt2.config.json'));
  big._notes = randomBytes(40000).toString('base64');  // 53 KB that deflate cannot pack below 32 KiB
  await page.fill('#config-text', JSON.stringify(big));
  await page.fill('#batch', '3');
  await page.waitForFunction(() => !document.getElementById('share-note').hidden);
  assert.match(await text(page, '#share-note'), /^This pasted config is too large for a link: the link would be \d+ characters long, and browsers' address bars cut links past 32768\. The link keeps the job without the config; send the config as a file \(below\) or use Export JSON\.$/);
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  const q = stateOf(page.url());
  assert.equal(q.get('config'), '');
  assert.equal(q.get('batch'), '3');
  assert.ok(page.url().length < 32768);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#share-config')]);
  assert.equal(download.suggestedFilename(), 'config.json');
  assert.deepEqual(JSON.parse(readFileSync(await download.path(), 'utf8')), big);
  // the link opens the job with an empty Paste tab (no other model's figures)
  const again = await openCalculator(env.context, page.url());
  assert.match(await text(again, '#empty'), /^Paste or drop a config\.json/);
  assert.equal(await again.inputValue('#batch'), '3');
});

test('a 60 MB dropped config is refused from its size: never read, not in the text box, the address or the history', async () => {
  const page = await openCalculator(env.context, env.server.url);
  const before = await page.evaluate(async () => {
    window.__read = [];
    for (const name of ['text', 'arrayBuffer', 'stream']) {
      const original = Blob.prototype[name];
      Blob.prototype[name] = function read(...args) { window.__read.push(name); return original.apply(this, args); };
    }
    return { history: history.length, url: location.href, answers: (await import('./vramcalc-client.js')).coreCalls().answer };
  });
  const dataTransfer = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(60_000_000)], 'config.json', { type: 'application/json' }));
    return dt;
  });
  await page.dispatchEvent('#config-text', 'drop', { dataTransfer });
  await waitForText(page, '#error', /larger than 8 MB/);
  assert.equal(await text(page, '#error'), `config: config.json is larger than 8 MB ${LIMIT}; it has 60000000)`);
  assert.equal(await page.getAttribute('#config-text', 'aria-invalid'), 'true');
  const after = await page.evaluate(async () => ({ history: history.length, url: location.href, read: window.__read,
    box: document.getElementById('config-text').value.length, answers: (await import('./vramcalc-client.js')).coreCalls().answer }));
  assert.deepEqual(after, { history: before.history, url: before.url, read: [], box: 0, answers: before.answers });
  assert.equal(await page.isVisible('#output'), false);
});

test('a paste over the limit is refused at each keystroke without reaching the core or the address', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.click('[role=tab][data-source=paste]');
  const before = await page.evaluate(async () => ({ url: location.href, answers: (await import('./vramcalc-client.js')).coreCalls().answer }));
  await page.evaluate(() => {
    const box = document.getElementById('config-text');
    box.value = `{"model_type": "llama", "x": "${'x'.repeat(8_000_000)}"}`;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
  assert.equal(await text(page, '#error'), `config: the pasted text is larger than 8 MB ${LIMIT})`);
  await new Promise((r) => setTimeout(r, 300));  // past the address's pause after typing
  const after = await page.evaluate(async () => ({ url: location.href, answers: (await import('./vramcalc-client.js')).coreCalls().answer }));
  assert.deepEqual(after, before);
  // the page's limit is the core's: one byte more is the core's own size error, the limit itself is read
  const core = await page.evaluate(async () => {
    const { MAX_JSON_TEXT, estimate } = await import('./vramcalc-client.js');
    return [(await estimate(' '.repeat(MAX_JSON_TEXT + 1), {})).error.message, (await estimate(' '.repeat(MAX_JSON_TEXT), {})).error.message];
  });
  assert.equal(core[0], `config: larger than 8 MB ${LIMIT})`);
  assert.doesNotMatch(core[1], /larger than/);
  // a link whose config inflates past the limit is refused the same way, before the text box or the core
  const fragment = await page.evaluate(async () => (await import('./link.js'))
    .encodeState(new URLSearchParams({ config: `{"x": "${'x'.repeat(9_000_000)}"}` })));
  const link = await openCalculator(env.context, `${env.server.url}index.html#${fragment}`);
  assert.equal(await text(link, '#error'), `config: the link's config is larger than 8 MB ${LIMIT})`);
  assert.equal(await link.inputValue('#config-text'), '');
});

test('Hub ids: only namespace/name by the Hub\'s rules; a non-JSON answer is never kept; a huge answer stops at 8 MB', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await page.click('[role=tab][data-source=hub]');
  const asked = [];
  await env.context.route('https://huggingface.co/Org/**', (route) => {
    asked.push(new URL(route.request().url()).pathname);
    const answers = {
      '/Org/Html-Page/resolve/main/config.json': { status: 200, contentType: 'text/html', body: '<!doctype html><title>Sign in</title>' },
      '/Org/Huge/resolve/main/config.json': { status: 200, contentType: 'application/json', body: `{"x": "${'x'.repeat(20_000_000)}"}` },
    };
    return route.fulfill(answers[new URL(route.request().url()).pathname] ?? { status: 404, body: 'Entry not found' });
  });
  for (const id of ['Org/..', 'Org/.', 'gpt2', 'Org/a--b', 'Org/name.git', 'Org/-name', 'Org/name/extra', '../Org/x']) {
    await page.fill('#hub-id', id);
    await page.click('#hub-fetch');
    await waitForText(page, '#error', /is not a model id/);
    assert.match(await text(page, '#error'), new RegExp(`^Hugging Face id: '${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' is not a model id`));
  }
  assert.deepEqual(asked, []);  // none of them reached the Hub
  await page.fill('#hub-id', 'Org/Html-Page');
  await page.click('#hub-fetch');
  await waitForText(page, '#error', /^config: malformed JSON/);
  assert.equal(await page.evaluate(() => localStorage.getItem('vramcalc-hub:Org/Html-Page')), null);
  await page.fill('#hub-id', 'Org/Huge');
  await page.click('#hub-fetch');
  await waitForText(page, '#error', /larger than 8 MB/);
  assert.equal(await text(page, '#error'), `Hugging Face id: Org/Huge's config.json is larger than 8 MB ${LIMIT})`);
  assert.equal(await page.evaluate(() => localStorage.getItem('vramcalc-hub:Org/Huge')), null);
  await env.context.unroute('https://huggingface.co/Org/**');
  // The byte counter stops reading at the cap: an endless answer is pulled only a chunk past 8 MB.
  const pulled = await page.evaluate(async () => {
    const { readCapped } = await import('./hub.js');
    let bytes = 0;
    const endless = new ReadableStream({ pull(c) { bytes += 1_000_000; c.enqueue(new Uint8Array(1_000_000)); } }, { highWaterMark: 0 });
    const error = await readCapped(new Response(endless), 8_000_000, () => new Error('over')).catch((e) => e.message);
    return { error, bytes };
  });
  assert.deepEqual(pulled, { error: 'over', bytes: 9_000_000 });
});
