// Hostile input on the page (issue 13): the embed snippet cannot carry
// markup, flags are true/false or an error, no stale numbers after any
// failure, large configs survive the URL, and the strict CSP holds.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, cspViolations, settled, waitForState, stateOf, repo } from './harness.mjs';

const fixture = (name) => readFileSync(path.join(repo, 'tests', 'fixtures', name), 'utf8');
let server, context;
before(async () => {
  server = await startServer();
  context = await launchBrowser();
});
after(async () => {
  await context?.close();
  await server?.close();
});
const text = (page, selector) => page.locator(selector).first().innerText();

test('the Embed snippet escapes every value: the issue\'s payload stays an attribute', async () => {
  const payload = 'x"></vram-calc><img src=x onerror=alert(document.domain)><vram-calc x="';
  // The link: the core rejects the targets in every mode, so the page shows the error and offers no snippet.
  const page = await openCalculator(context, `${server.url}index.html?model=llama-3-8b&lora_targets=${encodeURIComponent(payload)}`);
  assert.match(await text(page, '#error'), /^LoRA targets: /);
  assert.equal(await page.getAttribute('#lora_targets', 'aria-invalid'), 'true');
  assert.equal(await page.isVisible('#embed'), false);
  // The snippet writer itself escapes whatever it is given: the payload in the model id and in a field.
  const snippet = await page.evaluate(async (p) => (await import('./embed.js')).embedSnippet({
    here: new URL('./', location.href).href, modelId: p, changed: { lora_targets: p, mode: 'lora' },
    fragment: await (await import('./link.js')).encodeState(new URLSearchParams({ model: p, lora_targets: p })) }), payload);
  const parsed = await page.evaluate((html) => {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    return { tags: [...doc.body.querySelectorAll('*')].map((e) => e.tagName.toLowerCase()),
      model: doc.querySelector('vram-calc').getAttribute('model'),
      targets: doc.querySelector('vram-calc').getAttribute('lora-targets'),
      src: doc.querySelector('iframe').getAttribute('src') };
  }, snippet);
  // the widget's <script> sits in <head> when parsed alone; the widget holds its fallback link (shown only if it cannot
  // load); the last is embed-host.js, which sizes the iframe
  assert.deepEqual(parsed.tags, ['vram-calc', 'a', 'iframe', 'script']);
  assert.equal(parsed.model, payload);
  assert.equal(parsed.targets, payload);
  assert.equal(stateOf(parsed.src).get('lora_targets'), payload);
  // Rendered into a host page: no element beyond the widget and no script runs.
  const host = await context.newPage();
  let dialog = false;
  host.on('dialog', async (d) => { dialog = true; await d.dismiss(); });
  await context.route('**/blog-post.html', (route) => route.fulfill({ contentType: 'text/html',
    body: `<!doctype html><html lang="en"><title>post</title><body><main>${snippet}</main></body></html>` }));
  await host.goto(`${server.url}blog-post.html`);
  await host.waitForFunction(() => document.querySelector('vram-calc').dataset.error);
  const tags = await host.evaluate(() => [...document.querySelector('main').querySelectorAll('*')].map((e) => e.tagName.toLowerCase()));
  assert.deepEqual(tags, ['script', 'vram-calc', 'a', 'iframe', 'script']);
  assert.match(await host.evaluate(() => document.querySelector('vram-calc').dataset.error), /^Model: unknown model/);
  assert.equal(dialog, false);
  await host.close();
});

test('flags from the URL: true/false work, anything else is an error under the field, never a silent false', async () => {
  const page = await openCalculator(context, `${server.url}index.html?flash_attention=1`);
  assert.match(await text(page, '#error'), /^FlashAttention: must be true or false, got "1"/);
  assert.match(await text(page, '#flash_attention-error'), /^must be true or false, got "1"/);
  assert.equal(await page.getAttribute('#flash_attention', 'aria-invalid'), 'true');
  assert.equal(await page.isVisible('#output'), false);  // no number at all
  await waitForState(page, 'flash_attention', '1');  // the link keeps what was asked, not a silent false
  await page.check('#flash_attention');
  assert.equal(await text(page, '#total'), '18.87 GB');
  assert.equal(await page.isVisible('#error'), false);
  const off = await openCalculator(context, `${server.url}index.html?flash_attention=false`);
  assert.equal(await off.isChecked('#flash_attention'), false);
  assert.equal(await off.isVisible('#error'), false);
  const on = await openCalculator(context, `${server.url}index.html?flash_attention=true&mode=train`);
  const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
  assert.equal(await text(on, '#total'), JSON.parse(execFileSync(cli, ['--model', 'llama-3-8b', '--mode', 'train', '--json'], { encoding: 'utf8' })).total_text);
  // A value a menu or number box cannot hold reaches the core as given: its error quotes it (not `got ""`).
  const bogus = await openCalculator(context, `${server.url}index.html?mode=bogus`);
  assert.match(await text(bogus, '#error'), /^Mode: .*'bogus'|^Mode: .*"bogus"/);
  const letters = await openCalculator(context, `${server.url}index.html?gpus=abc`);
  assert.match(await text(letters, '#error'), /^GPUs: must be a number, got "abc"/);
  // Choosing a value in the control replaces the one from the link.
  await bogus.selectOption('#mode', 'train');
  await settled(bogus);
  assert.equal(await bogus.isVisible('#error'), false);
});

test('no stale numbers: another model\'s figures never stay behind an error', async () => {
  const page = await openCalculator(context, `${server.url}index.html?model=gpt2&gpus=3&tp=3`);
  const gpt2 = await text(page, '#total');
  await page.selectOption('#model', 'llama-3-8b');  // 32 heads: TP 3 does not divide them
  assert.match(await text(page, '#error'), /^TP \(0 = auto\): tensor parallel degree 3 must divide num_attention_heads \(32\)/);
  assert.equal(await page.isVisible('#output'), false);
  assert.doesNotMatch(await page.locator('body').innerText(), new RegExp(gpt2.replace('.', '\\.')));
});

test('deeply nested pastes and ?cfg= links: an error naming the config, then the page recovers', async () => {
  const page = await openCalculator(context, server.url);
  await page.click('[role=tab][data-source=paste]');
  // A config whose field is nested 5000 deep: error texts that echo the value recurse.
  const deep = `{"model_type": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
  for (let i = 0; i < 2; i++) {
    await page.fill('#config-text', fixture('gpt2.config.json'));
    await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('124.4 M'));
    await page.fill('#config-text', deep);
    await page.waitForFunction(() => !document.getElementById('error').hidden);
    assert.match(await text(page, '#error'), /^config/);
    assert.equal(await page.isVisible('#output'), false);
    assert.equal(await page.getAttribute('#config-text', 'aria-invalid'), 'true');
  }
  // the core still answers correctly afterwards
  await page.fill('#config-text', fixture('mixtral-8x7b.config.json'));
  await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('46.70 B'));
  assert.equal(await page.isVisible('#error'), false);
  // a shared link holding such a config (an older ?cfg= link, or the fragment) gets ready and says what is wrong
  const fragment = await page.evaluate(async (d) => (await import('./link.js')).encodeState(new URLSearchParams({ config: d })), deep);
  for (const address of [`index.html?cfg=${Buffer.from(deep).toString('base64url')}`, `index.html#${fragment}`]) {
    const link = await openCalculator(context, `${server.url}${address}`);
    assert.match(await text(link, '#error'), /^config/);
    assert.equal(await link.isVisible('#output'), false);
  }
  const broken = await openCalculator(context, `${server.url}index.html?cfg=%%%not-base64`);
  assert.match(await text(broken, '#error'), /^config: the link's cfg= value is not a valid encoded config\.json/);
});

test('a config of 300 KB goes into the link compressed, and back', async () => {
  const page = await openCalculator(context, server.url);
  await page.click('[role=tab][data-source=paste]');
  const big = JSON.parse(fixture('gpt2.config.json'));
  big._notes = 'é'.repeat(150000);  // 300 KB of UTF-8, which deflate packs into a short link
  await page.fill('#config-text', JSON.stringify(big));
  await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('124.4 M'));
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  assert.equal(stateOf(page.url()).get('config'), JSON.stringify(big));
  assert.ok(page.url().length < 4000, `${page.url().length} characters`);
  assert.equal(await page.isVisible('#share-note'), false);
  const again = await openCalculator(context, page.url());
  assert.match(await text(again, '#model-info'), /124\.4 M parameters/);
  assert.equal(JSON.parse(await again.inputValue('#config-text'))._notes.length, 150000);
});

test('strict CSP: page works with every panel used; inline style attributes are blocked, CSSOM is not', async () => {
  const page = await openCalculator(context, `${server.url}index.html?mode=train`);
  await page.fill('#batch', '2');
  await page.click('#compare-add');
  await page.click('#embed');
  await settled(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
  assert.ok((await readFileSync(await download.path())).subarray(1, 4).toString() === 'PNG');
  assert.ok(await page.locator('#chart-seq svg polygon').count() >= 4);  // training at 1 GPU: a linear axis, stacked
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(page.jsErrors, []);
  // The policy is really enforced (not a vacuous pass): a style attribute is refused, element.style is allowed.
  const probe = await page.evaluate(() => {
    const a = document.createElement('div');
    a.setAttribute('style', 'width: 123px');
    const b = document.createElement('div');
    b.style.width = '77px';
    document.body.append(a, b);
    return [getComputedStyle(a).width, getComputedStyle(b).width];
  });
  await page.waitForFunction(() => window.__csp.length > 0);
  assert.notEqual(probe[0], '123px');
  assert.equal(probe[1], '77px');
  assert.match((await cspViolations(page)).join(), /style-src/);
});
