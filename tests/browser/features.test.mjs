// Issue 11 features: charts from one sweep call each, the precision × mode
// matrix, setups side by side, CSV/Markdown export, the Back button, model
// search (names, Hub ids, "no match", selection kept), full Hub URLs, Hub
// configs kept for offline use, the custom GPU in the URL, the iframe embed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { offlineCalculator, openCalculator, settled, waitForText, waitForState, stateOf, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const fixture = (name) => readFileSync(path.join(repo, 'tests', 'fixtures', name), 'utf8');
const native = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));
const env = offlineCalculator();
const text = (page, selector) => page.locator(selector).first().innerText();

test('charts: stacked areas per term from one call for both charts, the job marked, the custom GPU\'s line', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&mode=train`);
  // one core call for both charts (the answer's charts part), however many points
  const calls = await page.evaluate(async () => {
    const { coreCalls } = await import('./vramcalc-client.js');
    const before = coreCalls()['answer.charts'] ?? 0;
    document.getElementById('batch').value = '2';
    document.getElementById('batch').dispatchEvent(new Event('input', { bubbles: true }));
    while (document.body.dataset.busy) await new Promise((r) => setTimeout(r, 10));
    return coreCalls()['answer.charts'] - before;
  });
  assert.equal(calls, 1);
  for (const id of ['chart-seq', 'chart-batch']) {
    const terms = await page.locator(`#${id} polygon`).evaluateAll((ps) => ps.map((p) => p.dataset.term));
    // one area per term that is non-zero at some point; full training has no KV cache
    assert.ok(terms.includes('weights') && terms.includes('optimizer') && terms.includes('activations'), terms.join());
    assert.ok(!terms.includes('kv_cache'));
  }
  // the job's own point carries the same total as the breakdown, labelled on the chart
  assert.equal(await page.locator('#chart-batch .current-label').textContent(), `batch 2: ${await text(page, '#total')}`);
  // axis marks are the core's: "0 GB" at the bottom
  assert.equal(await page.locator('#chart-seq text.tick').first().textContent(), '0 GB');
  // a custom GPU (its memory in GiB, under Your GPUs) is kept in the URL and drawn as a line
  await page.selectOption('#gpu', 'custom');
  await page.check('#units-gib');
  await page.fill('#your-mem', '20');
  await settled(page);
  await waitForState(page, 'device_gib', '20');
  // the core writes the line's label in the page's units (GiB here)
  assert.equal(await page.locator('#chart-seq .capacity-label', { hasText: /^Your GPU: 20(\.00)? GiB/ }).count(), 1);
  const again = await openCalculator(env.context, page.url());
  assert.equal(await again.inputValue('#your-mem'), '20');
  assert.equal(await again.locator('#chart-batch .capacity-label', { hasText: /^Your GPU/ }).count(), 1);
});

test('precision × mode matrix and setups side by side match the CLI', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen2.5-7b&seq=2048`);
  const cell = (dtype, mode) => text(page, `#matrix tr[data-dtype=${dtype}] td[data-mode=${mode}]`);
  assert.equal(await cell('bf16', 'inference'), native(['--model', 'qwen2.5-7b', '--seq', '2048']).total_text);
  assert.equal(await cell('fp32', 'train'), native(['--model', 'qwen2.5-7b', '--seq', '2048', '--mode', 'train', '--dtype', 'fp32']).total_text);
  // the matrix holds the job's checkpointing (none) in every column (core/api/sweep.cpp matrix_json)
  assert.equal(await cell('nf4', 'qlora'), native(['--model', 'qwen2.5-7b', '--seq', '2048', '--mode', 'qlora', '--dtype', 'nf4', '--checkpointing', 'none']).total_text);
  assert.equal(await cell('q4_k_m', 'train'), '—');  // refused, with the reason as its title
  assert.match(await page.getAttribute('#matrix tr[data-dtype=q4_k_m] td[data-mode=train]', 'title'), /^job\.dtype: /);
  assert.equal(await page.getAttribute('#matrix tr[data-dtype=bf16] td[data-mode=inference]', 'aria-current'), 'true');
  // three setups: this one, LoRA on Llama 3 8B, Mixtral inference
  await page.click('#compare-add');
  await page.selectOption('#model', 'llama-3-8b');
  await page.selectOption('#mode', 'lora');
  await page.click('#compare-add');
  await page.selectOption('#model', 'mixtral-8x7b');
  await page.selectOption('#mode', 'inference');
  await page.click('#compare-add');
  await settled(page);
  // the same setup again (a field typed at its default value changes nothing) is not a second column, and the note says so
  await page.fill('#batch', '1');
  await settled(page);
  await page.click('#compare-add');
  assert.equal(await text(page, '#compare-note'), 'This setup is already in the comparison.');
  const totals = await page.locator('#compare tr.total td').allInnerTexts();
  assert.deepEqual(totals, [
    native(['--model', 'qwen2.5-7b', '--seq', '2048']).total_text,
    native(['--model', 'llama-3-8b', '--seq', '2048', '--mode', 'lora']).total_text,
    native(['--model', 'mixtral-8x7b', '--seq', '2048']).total_text]);
  // the list lives in the URL, and Remove drops one
  const url = page.url();
  assert.equal(stateOf(url).getAll('cmp').length, 3);
  await page.click('#compare th button.remove >> nth=1');
  await settled(page);
  assert.equal(await page.locator('#compare tr.total td').count(), 2);
  // focus moves to the setup that took the removed one's place (Mixtral's Remove), not to the page's top
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Remove setup 2: Mixtral 8x7B');
  const again = await openCalculator(env.context, url);
  assert.equal(await again.locator('#compare tr.total td').count(), 3);
  // removing the last ones: focus ends on Add, and no hidden Remove button is left behind
  await page.click('#compare th button.remove >> nth=1');
  await settled(page);
  await page.click('#compare th button.remove >> nth=0');
  await settled(page);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'compare-add');
  assert.equal(await page.locator('#compare button.remove').count(), 0);
});

test('CSV and Markdown exports hold both jobs term by term; Markdown and PNG say the verdict, the GPUs and the link', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b`);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const rows = readFileSync(await csv.path(), 'utf8').trim().split('\r\n').map((r) => r.split(','));
  assert.deepEqual(rows[0], ['Term', 'Inference (bytes)', 'Inference', 'Full training (bytes)', 'Full training']);
  assert.deepEqual(rows[1], ['Weights', '16060522496', '16.06 GB', '16060522496', '16.06 GB']);  // 8,030,261,248 × 2 bytes
  const train = native(['--model', 'llama-3-8b', '--mode', 'train']).total_text;
  assert.deepEqual(rows.at(-1).filter((_, i) => i % 2 === 0), ['Total per GPU', '18.87 GB', train]);
  const [md] = await Promise.all([page.waitForEvent('download'), page.click('#export-md')]);
  const markdown = readFileSync(await md.path(), 'utf8');
  // the answer's own words first: the verdict with the model, the GPUs, the recipe; the link last
  const answer = native(['--model', 'llama-3-8b']);
  const lines = markdown.split('\n');
  assert.equal(lines[0], `Llama 3 8B: ${answer.verdict.text}  `);
  assert.equal(lines[1], `GPUs: ${answer.machine.text}  `);
  assert.equal(lines[2], `Recipe: ${answer.recipe.text}  `);
  assert.match(markdown, /\n\*\*Llama 3 8B: Inference, BF16, batch 1 × 4096 tokens, per GPU\*\*\n/);
  assert.match(markdown, /\| Term \| Inference \| Full training \|\n\| --- \| ---: \| ---: \|/);
  assert.ok(markdown.includes(`| Total per GPU | 18.87 GB | ${train} |`));
  const link = markdown.match(/\[Open in vramcalc\]\((http[^)]+)\)\n$/)[1];
  assert.equal(stateOf(link).get('model'), 'llama-3-8b');
  // the PNG carries them too: its SVG source, drawn from the same lines
  const svgText = await page.evaluate(async () => {
    const { exportPng } = await import('./panels/export.js');
    let svg = '';
    const create = URL.createObjectURL;
    URL.createObjectURL = (blob) => { if (blob.type === 'image/svg+xml') blob.text().then((t) => { svg = t; }); return create(blob); };
    const { state } = await import('./state.js');
    await exportPng({ name: 'Llama 3 8B', result: state.result, link: location.href }).catch(() => {});
    URL.createObjectURL = create;
    for (let i = 0; i < 50 && !svg; i++) await new Promise((r) => setTimeout(r, 20));
    return svg;
  });
  assert.ok(svgText.includes(answer.verdict.text.replaceAll('&', '&amp;').slice(0, 60)), 'the PNG holds the verdict');
  assert.ok(svgText.includes('GPUs: no GPU chosen'), 'the PNG holds the GPUs');
  assert.ok(svgText.includes('http://127.0.0.1'), 'the PNG holds the link');
});

test('Back and Forward restore earlier choices', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html`);
  await page.selectOption('#model', 'mistral-7b');
  await page.selectOption('#mode', 'train');
  const trained = await text(page, '#total');
  await page.selectOption('#model', 'gemma-2-9b');
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('model').value === 'mistral-7b');
  assert.equal(await page.inputValue('#mode'), 'train');
  assert.equal(await text(page, '#total'), trained);
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('mode').value === 'inference');
  assert.equal(await page.inputValue('#model'), 'mistral-7b');
  await page.goForward();
  await page.waitForFunction(() => document.getElementById('mode').value === 'train');
  assert.equal(await text(page, '#total'), trained);
});

test('search: names and Hub ids, never hides the selection, says when nothing matches', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b`);
  await page.fill('#model-search', 'qwen');
  const visible = () => page.locator('#model option').evaluateAll((os) => os.filter((o) => !o.hidden).map((o) => o.value));
  const shown = await visible();
  assert.ok(shown.includes('llama-3-8b'), 'the selected model stays listed');
  assert.ok(shown.filter((v) => v.startsWith('qwen')).length >= 5);
  assert.match(await text(page, '#search-status'), /^\d+ matches$/);
  await page.fill('#model-search', 'zzzz-nothing');
  assert.equal(await text(page, '#search-status'), 'No model matches “zzzz-nothing”.');
  assert.deepEqual(await visible(), ['llama-3-8b']);
  // a Hub id, or its full address, picks the catalog entry
  await page.fill('#model-search', 'https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/tree/main');
  await page.waitForFunction(() => document.getElementById('model').value === 'mixtral-8x7b');
  await page.fill('#model-search', 'Qwen/Qwen2.5-14B');
  await page.waitForFunction(() => document.getElementById('model').value === 'qwen2.5-14b');
  assert.match(await waitForText(page, '#model-info', /^Qwen2\.5 14B/), /^Qwen2\.5 14B/);
});

test('Hub: full addresses accepted; a fetched config is kept and used offline', async () => {
  const page = await openCalculator(env.context, env.server.url);
  await env.context.route('https://huggingface.co/Org/Tiny-GPT2/resolve/main/config.json',
    (route) => route.fulfill({ status: 200, contentType: 'application/json', body: fixture('gpt2.config.json') }));
  await page.click('[role=tab][data-source=hub]');
  await page.fill('#hub-id', 'https://huggingface.co/Org/Tiny-GPT2/blob/main/config.json');
  await page.click('#hub-fetch');
  await page.waitForFunction(() => document.getElementById('model-info').textContent.includes('124.4 M'));
  assert.equal(await page.inputValue('#hub-id'), 'Org/Tiny-GPT2');
  await waitForState(page, 'hf', 'Org/Tiny-GPT2');
  const weights = await text(page, '#breakdown tr[data-term=weights] td.num');
  // the Hub is now unreachable: the kept copy answers, and says so
  await env.context.unroute('https://huggingface.co/Org/Tiny-GPT2/resolve/main/config.json');
  const offline = await openCalculator(env.context, page.url());
  await offline.waitForFunction(() => document.getElementById('model-info').textContent.includes('124.4 M'));
  assert.equal(await text(offline, '#breakdown tr[data-term=weights] td.num'), weights);
  assert.match(await text(offline, '#hub-status'), /saved copy|copy saved/);
});

test('Hub: a gated or unreachable model that is in the catalog uses the catalog\'s config', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b`);
  const catalogTotal = await text(page, '#total');
  // meta-llama's repositories are gated: the Hub answers 401 without a token
  await env.context.route('https://huggingface.co/meta-llama/Meta-Llama-3-8B/resolve/main/config.json',
    (route) => route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"Access to model is restricted"}' }));
  await page.click('[role=tab][data-source=hub]');
  await page.fill('#hub-id', 'https://huggingface.co/meta-llama/Meta-Llama-3-8B');
  await page.click('#hub-fetch');
  await waitForText(page, '#hub-status', /gated on the Hub: using the catalog's copy of its config \(Llama 3 8B\)/);
  assert.equal(await text(page, '#total'), catalogTotal);
  await env.context.unroute('https://huggingface.co/meta-llama/Meta-Llama-3-8B/resolve/main/config.json');
  // the Hub unreachable (every request to it fails here), never fetched before: the catalog's copy, said so
  await page.fill('#hub-id', 'Qwen/Qwen2.5-7B');
  await page.click('#hub-fetch');
  await waitForText(page, '#hub-status', /^Could not reach huggingface\.co .*catalog's copy of its config \(Qwen2\.5 7B\)/);
  assert.match(await text(page, '#model-info'), /7\.6\d B/);
  // Back to a catalog model: the Hub status is not left behind
  await page.goBack();
  await page.goBack();
  await settled(page);
  assert.equal(await text(page, '#hub-status'), '');
  // a comparison column for a catalog model's Hub id works without the Hub
  const cmp = await openCalculator(env.context,
    `${env.server.url}index.html?model=qwen2.5-7b&cmp=${encodeURIComponent('hf=meta-llama/Meta-Llama-3-8B')}`);
  assert.equal(await cmp.locator('#compare tr.total td').first().innerText(), native(['--model', 'llama-3-8b']).total_text);
});

test('the iframe embed is not cut off: results first, one column, no sideways scroll, sized to its content', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen2.5-7b&mode=lora`);
  await page.click('#embed');
  const snippet = await page.inputValue('#embed-code');
  const iframe = snippet.slice(snippet.indexOf('<iframe'));  // the iframe and embed-host.js, which sizes it
  const host = await env.context.newPage();
  await host.setViewportSize({ width: 390, height: 800 });
  await env.context.route('**/post.html', (route) => route.fulfill({ contentType: 'text/html',
    body: `<!doctype html><html lang="en"><title>post</title><body><h1>My post</h1>${iframe}</body></html>` }));
  const heights = [];
  await host.exposeFunction('reportHeight', (h) => heights.push(h));
  await host.addInitScript(() => window.addEventListener('message', (e) => e.data?.vramcalcHeight && window.reportHeight(e.data.vramcalcHeight)));
  await host.goto(`${env.server.url}post.html`);
  const frame = host.frameLocator('iframe');
  await frame.locator('body[data-ready=true]').waitFor({ state: 'attached' });
  // the page's header takes no room; its h1 stays for screen readers
  assert.ok((await frame.locator('.top').boundingBox()).height <= 1);
  assert.equal(await frame.locator('.top p').isVisible(), false);
  assert.equal(await frame.locator('h1').count(), 1);
  const inner = host.frames().find((f) => f !== host.mainFrame());
  const { scroll, width } = await inner.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: innerWidth }));
  assert.ok(scroll <= width, `iframe content ${scroll}px in ${width}px`);
  // The answer comes first: the first card's total is inside the snippet's initial 900 px.
  const cardTop = await inner.evaluate(() => document.querySelector('#card-training .big').getBoundingClientRect().top);
  assert.ok(cardTop < 900 - 60, `first total at ${cardTop}px`);
  // embed-host.js gives the iframe the height its page reports: no inner scrollbar, nothing cut off.
  await host.waitForFunction(() => parseFloat(document.querySelector('iframe').style.height) > 900);
  const sized = await host.evaluate(() => document.querySelector('iframe').getBoundingClientRect().height);
  const content = await inner.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(heights.length > 0, 'the page reports its height');
  assert.ok(Math.abs(sized - content) <= 2, `iframe ${sized}px for ${content}px of content`);
  // and it shrinks with its content (inference shows fewer panels than LoRA)
  await inner.selectOption('#mode', 'inference');
  await host.waitForFunction((was) => parseFloat(document.querySelector('iframe').style.height) < was - 50, sized);
  await settled(inner);
  let shrunk = 0, shorter = 0;
  for (let i = 0; i < 50; i++) {  // the panels re-render one task at a time; the host follows each report
    shrunk = await host.evaluate(() => document.querySelector('iframe').getBoundingClientRect().height);
    shorter = await inner.evaluate(() => document.body.getBoundingClientRect().height);
    if (Math.abs(shrunk - shorter) <= 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(Math.abs(shrunk - shorter) <= 2 && shrunk < sized, `iframe ${shrunk}px for ${shorter}px of content (was ${sized}px)`);
  await host.close();
});

test('cluster panel: the core planner\'s throughput, step and time on your GPUs, for the fields in the URL and the controls', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&mode=train&gpu=h100&gpus=8&cl_tokens=1e9`);
  await page.locator('#cluster .vc-cl-card').first().waitFor();
  const cli = native(['--model', 'llama-3-8b', '--mode', 'train', '--gpu', 'h100', '--gpus', '8', '--cluster-tokens', '1e9']).planner;
  const cards = await page.locator('#cluster .vc-cl-big').allInnerTexts();
  assert.ok(cards.includes(cli.train.tokens_per_s_per_gpu_text), `${cards} has ${cli.train.tokens_per_s_per_gpu_text}`);
  assert.ok(cards.includes(cli.train.step_text));
  assert.ok(cards.includes(cli.train.budget.time_text));
  // The planner's GPUs are your GPUs: no count of its own.
  assert.equal(await page.locator('#cl-gpus').count(), 0);
  // A change of your count asks the core again, planner included, and goes into the link (a new history entry).
  await page.locator('#gpus').evaluate((input) => { input.value = '16'; input.dispatchEvent(new Event('change', { bubbles: true })); });
  await settled(page);
  const cli16 = native(['--model', 'llama-3-8b', '--mode', 'train', '--gpu', 'h100', '--gpus', '16', '--cluster-tokens', '1e9']).planner;
  await page.waitForFunction((t) => [...document.querySelectorAll('#cluster .vc-cl-big')].some((e) => e.textContent === t),
    cli16.train.budget.time_text);
  await waitForState(page, 'gpus', '16');
  // Back restores the link's fields, in the controls as in the answer.
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('gpus').value === '8');
  await page.waitForFunction((t) => [...document.querySelectorAll('#cluster .vc-cl-big')].some((e) => e.textContent === t),
    cli.train.budget.time_text);
  // A field applies as it is typed (no Enter, no change event): a pause in typing is enough.
  const cli2 = native(['--model', 'llama-3-8b', '--mode', 'train', '--gpu', 'h100', '--gpus', '8', '--cluster-tokens', '2e9']).planner;
  await page.locator('#cl-tokens').fill('');
  await page.locator('#cl-tokens').pressSequentially('2e9', { delay: 20 });
  await page.waitForFunction((t) => [...document.querySelectorAll('#cluster .vc-cl-big')].some((e) => e.textContent === t),
    cli2.train.budget.time_text);
  // A bad value is the core's named error, in the panel.
  await page.fill('#cl-tokens', '-5');
  await page.dispatchEvent('#cl-tokens', 'change');
  await page.locator('#cluster .vc-cl-error').waitFor();
  assert.match(await page.locator('#cluster .vc-cl-error').innerText(), /^Training tokens: /);
  assert.equal(await page.getAttribute('#cl-tokens', 'aria-invalid'), 'true');
});

test('while an input is invalid the dimmed figures cannot be exported or embedded', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b`);
  for (const id of ['export', 'export-csv', 'export-md', 'export-png', 'embed']) assert.equal(await page.isDisabled(`#${id}`), false, id);
  await page.fill('#batch', '0');
  await page.locator('#output.stale').waitFor();
  for (const id of ['export', 'export-csv', 'export-md', 'export-png', 'embed']) assert.equal(await page.isDisabled(`#${id}`), true, id);
  await page.fill('#batch', '2');
  await page.locator('#output:not(.stale)').waitFor();
  assert.equal(await page.isDisabled('#export'), false);
});

test('while an input is invalid every panel shows the same last good job as the dimmed cards', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3-8b&mode=train&seq=2048`);
  // A valid value, then at once an invalid one (fast typing). With the core on the page's thread too
  // (core-local.js) the valid one's totals are drawn in its own input task, so the dimmed figures are
  // its own (seq 1000) on every panel, though its other panels were still to come when the invalid
  // input arrived.
  await page.evaluate(async () => (await import('./vramcalc-client.js')).startLocalCore());
  await page.evaluate(() => {
    const seq = document.getElementById('seq');
    for (const v of ['1000', '']) {
      seq.value = v;
      seq.dispatchEvent(new Event('input', { bubbles: true }));
    }
  });
  await settled(page);
  assert.match(await page.getAttribute('#output', 'class'), /\bstale\b/);
  const total = await text(page, '#total');
  const cli = native(['--model', 'llama-3-8b', '--mode', 'train', '--seq', '1000']);
  assert.equal(total, cli.total_text);
  // the timeline (drawn after the cards) is for that same job, and its caption says what the total adds
  assert.match(await text(page, '#timeline-caption'), new RegExp(`total per GPU, ${total.replace('.', '\\.')}, is the peak plus`));
  const peak = cli.timeline.phases.find((p) => p.peak);
  assert.match(await page.getAttribute('#chart-timeline svg', 'aria-label'), new RegExp(`${peak.text.replace('.', '\\.')} \\(peak\\)`));
});
