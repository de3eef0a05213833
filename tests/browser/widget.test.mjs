// <vram-calc> widget: renders in a blog-like page, isolated styles, several
// per page, numbers equal to the main page's for the same inputs.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, screenshot, watchPage, cspViolations, stateOf, repo } from './harness.mjs';

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

// Issue 34: the planner's time and cost in the widget, each figure with its range, equal to the CLI's --json for
// the same flags (the widget's cluster-* attributes are the CLI's --cluster-* flags).
test('planner in the widget: days, GPU-hours, cost, step, tokens/s and MFU with their ranges, as the CLI; bad values named', async () => {
  const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
  const native = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' })).planner;
  const demo = await openDemo();
  const add = (id, attrs) => demo.evaluate(([i, a]) => {
    const w = document.createElement('vram-calc');
    w.id = i;
    for (const [k, v] of a) w.setAttribute(k, v);
    document.body.append(w);
  }, [id, attrs]);
  const shown = (id) => demo.evaluate((i) => {
    const root = document.getElementById(i).shadowRoot;
    const box = root.querySelector('.plan');
    return { hidden: box.hidden, head: box.querySelector('.plan-head')?.textContent, range: box.querySelector('.plan-range')?.textContent,
      why: box.querySelector('.plan-why')?.textContent,
      refused: box.querySelector('.plan-refused')?.textContent,
      facts: Object.fromEntries([...box.querySelectorAll('.plan-fact')].map((f) => [f.dataset.fact,
        [f.querySelector('.plan-value').textContent, f.querySelector('.plan-sub')?.textContent ?? '']])) };
  }, id);
  const settle = (id) => demo.waitForFunction((i) => { const w = document.getElementById(i); return (w.dataset.total || w.dataset.error) && !w.hasAttribute('aria-busy'); }, id);

  // Pre-training Llama 3 70B on 256 H100 for 1T tokens at $2 per GPU-hour.
  await add('pretrain', [['model', 'llama-3-70b'], ['mode', 'train'], ['gpu', 'h100'], ['gpus', '256'], ['cluster-tokens', '1T'],
    ['cluster-price-per-gpu-hour', '2']]);
  await settle('pretrain');
  const t = native(['--model', 'llama-3-70b', '--mode', 'train', '--gpu', 'h100', '--gpus', '256', '--cluster-tokens', '1T',
    '--cluster-price-per-gpu-hour', '2']).train;
  const train = await shown('pretrain');
  assert.equal(train.hidden, false);
  assert.equal(train.head, '256 × H100 80GB in 32 nodes of 8');
  assert.deepEqual(train.facts.time, [t.budget.time_text, t.budget.gpu_hours_text]);
  assert.deepEqual(train.facts.cost, [t.budget.cost_amount_text, t.budget.cost_text]);
  assert.deepEqual(train.facts.step, [t.step_text, `${t.tokens_per_step_text} · ${t.layout.text}`]);
  assert.deepEqual(train.facts.throughput, [t.tokens_per_s_per_gpu_text, t.tokens_per_s_text]);
  assert.equal(train.facts.mfu[0], t.mfu_text);
  // every figure carries its range: "47.2 days (40.6–49.0)"
  for (const [value] of Object.values(train.facts)) assert.match(value, /\(\$?[\d.,]+–[\d.,]+\)/, value);
  assert.match(train.range, /^Ranges: the measured run fell within them for \d+ of \d+ training rows under leave-one-source-out cross-validation\.$/);
  assert.equal(train.range, t.range_text);
  // The job as laid out (DP 256, no ZeRO) does not fit an H100: the verdict says so, and the planner says which layout
  // it timed instead (the core's sentence).
  assert.equal(train.why, native(['--model', 'llama-3-70b', '--mode', 'train', '--gpu', 'h100', '--gpus', '256', '--cluster-tokens', '1T'])
    .recommendation.chosen_why);
  assert.match(train.why, /does not fit; timed the fastest layout that fits, TP 4 × PP 2 × DP 32/);

  // Serving: 8 users on vLLM, Llama 3.1 8B on one H100 (plan alone: the planner's defaults but the load).
  await add('serve', [['model', 'llama-3.1-8b'], ['engine', 'vllm'], ['gpu', 'h100'], ['cluster-concurrency', '8']]);
  await settle('serve');
  const s = native(['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100', '--cluster-concurrency', '8']).serve;
  const serve = await shown('serve');
  assert.deepEqual(serve.facts.decode, [s.tokens_per_s_per_seq_text, s.tokens_per_s_cluster_text]);
  assert.deepEqual(serve.facts.ttft, [s.ttft_text, s.prefill_text]);
  assert.equal(serve.facts.token[0], s.token_text);
  for (const [value] of Object.values(serve.facts)) assert.match(value, /\([\d.,]+–[\d.,]+( \w+)?\)|–/, value);
  assert.equal(serve.range, s.range_text);

  // A value the planner refuses is said in the planner's place, naming the field, with no planner figure left
  // beside it (the memory answer above it stands: it does not read the price), as the page's Cluster section does.
  await demo.evaluate(() => document.getElementById('pretrain').setAttribute('cluster-price-per-gpu-hour', '-2'));
  await demo.waitForFunction(() => !!document.getElementById('pretrain').shadowRoot.querySelector('.plan-refused'));
  await settle('pretrain');
  const refused = await shown('pretrain');
  assert.match(refused.refused, /price/i);
  assert.match(refused.refused, /-2/);
  assert.doesNotMatch(refused.refused, /NaN|undefined/);
  assert.deepEqual(refused.facts, {});
  // A value the core cannot read (a flag that is neither true nor false) is said there too, naming the field.
  await demo.evaluate(() => document.getElementById('pretrain').setAttribute('cluster-cuda-graphs', 'maybe'));
  await demo.waitForFunction(() => /maybe/.test(document.getElementById('pretrain').shadowRoot.querySelector('.plan-refused')?.textContent ?? ''));
  await settle('pretrain');
  const unread = await shown('pretrain');
  assert.match(unread.refused, /true or false/);
  assert.deepEqual(unread.facts, {});
  assert.ok(await demo.evaluate(() => document.getElementById('pretrain').dataset.total));
  await demo.evaluate(() => document.getElementById('pretrain').removeAttribute('cluster-cuda-graphs'));
  // plan is a flag like the widget's others: a bare attribute or true / false, anything else named.
  await demo.evaluate(() => document.getElementById('pretrain').setAttribute('plan', 'yes'));
  await demo.waitForFunction(() => /^plan: must be true or false/.test(document.getElementById('pretrain').shadowRoot.querySelector('.plan-refused')?.textContent ?? ''));
  assert.match((await shown('pretrain')).refused, /got "yes"$/);
  await demo.evaluate(() => document.getElementById('pretrain').removeAttribute('plan'));
  // Without plan or cluster-* the planner's box is hidden: a memory widget stays a memory widget.
  await demo.evaluate(() => {
    const w = document.getElementById('pretrain');
    w.removeAttribute('cluster-price-per-gpu-hour');
    w.removeAttribute('cluster-tokens');
  });
  await demo.waitForFunction(() => document.getElementById('pretrain').dataset.total);
  await settle('pretrain');
  assert.equal((await shown('pretrain')).hidden, true);
  // plan alone: the planner with its defaults (no tokens: step, throughput and MFU, no budget).
  await demo.evaluate(() => document.getElementById('pretrain').setAttribute('plan', ''));
  await demo.waitForFunction(() => !document.getElementById('pretrain').shadowRoot.querySelector('.plan').hidden);
  await settle('pretrain');
  assert.deepEqual(Object.keys((await shown('pretrain')).facts), ['step', 'throughput', 'mfu']);
  // A post-training job is not timed: the planner's place says why (the core's text).
  await add('grpo', [['model', 'qwen2.5-7b'], ['mode', 'grpo'], ['policy', 'lora'], ['gpu', 'h100'], ['plan', '']]);
  await settle('grpo');
  assert.match((await shown('grpo')).refused, /planner times pre-training and serving/);
  assert.deepEqual(demo.jsErrors, []);
  await screenshot(demo, 'widget-planner');
});
