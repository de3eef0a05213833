// <vram-calc> widget: renders in a blog-like page, isolated styles, several
// per page, numbers equal to the main page's for the same inputs.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, openCalculator, screenshot, watchPage, cspViolations, stateOf } from './harness.mjs';

let server, context;
before(async () => {
  server = await startServer();
  context = await launchBrowser();
});
after(async () => {
  await context?.close();
  await server?.close();
});

async function openDemo() {
  const page = watchPage(await context.newPage());
  await page.goto(`${server.url}embed-demo.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total));
  return page;
}
const widgetTotal = (page, id) => page.locator(`#${id} .total`).innerText();
async function pageTotal(query) {
  const page = await openCalculator(context, `${server.url}index.html?${query}`);
  const total = await page.locator('#total').innerText();
  await page.close();
  return total;
}

test('three widgets on one page match the main page for the same inputs', async () => {
  const demo = await openDemo();
  assert.equal(await demo.locator('vram-calc').count(), 3);
  assert.match(await widgetTotal(demo, 'train'), new RegExp(`^${await pageTotal('model=llama-3-8b&mode=train')}`));
  assert.match(await widgetTotal(demo, 'qlora'),
    new RegExp(`^${await pageTotal('model=llama-3-8b&mode=qlora&seq=2048&checkpointing=full')}`));
  assert.match(await widgetTotal(demo, 'deepseek'), new RegExp(`^${await pageTotal('model=deepseek-v3&dtype=q4_k_m')}`));
  assert.match(await demo.locator('#deepseek .fit').innerText(), /^[\d.]+ [GT]B in all → \d+ × /);
  assert.deepEqual(demo.jsErrors, []);
  // served with the strict CSP header (and its own <meta>): nothing blocked
  assert.deepEqual(await cspViolations(demo), []);
  await screenshot(demo, 'embed-demo');
});

test('widget styles are isolated and attributes update it live', async () => {
  const demo = await openDemo();
  // The blog's "table { border: 3px solid red }" does not reach the widget's table.
  const border = await demo.locator('#train table').evaluate((t) => getComputedStyle(t).borderTopWidth);
  assert.notEqual(border, '3px');
  const before = await demo.evaluate(() => document.getElementById('train').dataset.total);
  await demo.evaluate(() => document.getElementById('train').setAttribute('batch', '8'));
  await demo.waitForFunction((b) => document.getElementById('train').dataset.total !== b, before);
  assert.match(await widgetTotal(demo, 'train'), new RegExp(`^${await pageTotal('model=llama-3-8b&mode=train&batch=8')}`));
  await demo.evaluate(() => document.getElementById('qlora').setAttribute('batch', '-3'));
  await demo.waitForFunction(() => !document.querySelector('#qlora').shadowRoot.querySelector('.error').hidden);
  assert.match(await demo.locator('#qlora .error').innerText(), /^Batch \(per GPU\): must be between 1 and/);
  await demo.evaluate(() => document.getElementById('deepseek').setAttribute('model', 'gpt-7'));
  await demo.waitForFunction(() => !document.querySelector('#deepseek').shadowRoot.querySelector('.error').hidden);
  assert.match(await demo.locator('#deepseek .error').innerText(), /^Model: unknown model 'gpt-7'; did you mean [\w.-]+(, [\w.-]+)?( or [\w.-]+)?\?$/);
});

test('the page\'s iframe embed shows the compact calculator', async () => {
  const page = await openCalculator(context, `${server.url}index.html?model=qwen2.5-7b&mode=lora`);
  await page.click('#embed');
  const snippet = await page.inputValue('#embed-code');
  const src = snippet.match(/<iframe src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  const host = await context.newPage();
  await host.setContent(`<h1>My post</h1>${snippet.slice(snippet.indexOf('<iframe'))}`);
  const frame = host.frameLocator('iframe');
  await frame.locator('body[data-ready=true]').waitFor({ state: 'attached' });
  // the page's header takes no room; its h1 stays for screen readers
  assert.ok((await frame.locator('.top').boundingBox()).height <= 1);
  assert.equal(await frame.locator('.top p').isVisible(), false);
  assert.equal(await frame.locator('h1').count(), 1);
  assert.equal(await frame.locator('#total').innerText(), await page.locator('#total').innerText());
  assert.match(src, /\/index\.html\?embed=1#s=/);
  assert.deepEqual([...stateOf(src)], [['model', 'qwen2.5-7b'], ['mode', 'lora']]);
});

test('widget flags: true/false or a bare attribute; anything else is an error naming the field', async () => {
  const demo = await openDemo();
  const total = (id) => demo.evaluate((i) => document.getElementById(i).dataset.total ?? null, id);
  const error = (id) => demo.evaluate((i) => document.getElementById(i).dataset.error ?? null, id);
  const set = (id, name, value) => demo.evaluate(([i, n, v]) => {
    const w = document.getElementById(i);
    return new Promise((resolve) => {
      w.addEventListener('vramcalc-update', resolve, { once: true });
      setTimeout(resolve, 2000);
      if (v === null) w.removeAttribute(n); else w.setAttribute(n, v);
    });
  }, [id, name, value]);
  const flashOn = await total('train');
  await set('train', 'flash-attention', 'false');
  const flashOff = await total('train');
  assert.notEqual(flashOff, flashOn);
  await set('train', 'flash-attention', '');
  assert.equal(await total('train'), flashOn);  // a bare attribute means true
  await set('train', 'flash-attention', 'true');
  assert.equal(await total('train'), flashOn);
  for (const sloppy of ['yes', '1', 'on']) {
    await set('train', 'flash-attention', sloppy);
    await demo.waitForFunction(() => !!document.getElementById('train').dataset.error);
    assert.match(await error('train'), new RegExp(`^FlashAttention: must be true or false, got "${sloppy}"`));
    assert.equal(await total('train'), null);  // no number shown beside the error
    assert.equal(await demo.locator('#train .result').isVisible(), false);
  }
  await set('train', 'flash-attention', null);
  await demo.waitForFunction(() => !!document.getElementById('train').dataset.total);
  assert.equal(await total('train'), flashOn);
});
