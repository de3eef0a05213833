// Your whole machine (issue 32, the page and the widget): "Your GPUs" gains the system RAM (remembered, in the
// link), the local panel shows the core's answer for both pools, the speed and the command, and the widget's
// ram attribute. Every figure is asserted against the native CLI given the same job (build/vramcalc --job … --json),
// and the command against the CLI's own "Run it:" line.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, openCalculator, watchPage, waitForState, stateOf, screenshot, cspViolations, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'vramcalc-machine-'));
let files = 0;
const jobFile = (job) => {
  const file = path.join(tmp, `job-${files++}.json`);
  writeFileSync(file, JSON.stringify(job));
  return file;
};
// The CLI's answer for a catalog model and a job (JSON), or its text report.
const native = (model, job, extra = ['--json']) => execFileSync(cli, ['--model', model, '--job', jobFile(job), ...extra], { encoding: 'utf8' });
const nativeJson = (model, job, extra = []) => JSON.parse(native(model, job, [...extra, '--json']));
// The text report's launch line: the line after "Run it:" (the CLI names the model by its Hub id there).
const nativeCommand = (model, job) => {
  const lines = native(model, job, []).split('\n');
  return lines[lines.indexOf('Run it:') + 1].trim();
};
// A refused job: the CLI's exit status and its error line.
const nativeError = (model, job) => spawnSync(cli, ['--model', model, '--job', jobFile(job), '--json'], { encoding: 'utf8' });
const intentJob = (id) => JSON.parse(execFileSync(cli, ['--intents'], { encoding: 'utf8' })).intents.find((i) => i.id === id).job;
const catalog = JSON.parse(readFileSync(path.join(repo, 'web', 'models.json'), 'utf8')).models;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// axe-core's serious and critical violations on the page (as layout.test.mjs runs it).
async function axe(page) {
  await page.addScriptTag({ content: axeSource }).catch(() => page.evaluate(axeSource));
  return page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
}
const hubId = (id) => { const m = catalog.find((x) => x.id === id); return m.hf_id || m.id; };

// A blog post with widgets (set per test), on the calculator's own server.
let post = '';
let server, context;
before(async () => {
  server = await startServer(undefined, { override: (p) => (p === '/post.html' ? { body: post } : undefined) });
  context = await launchBrowser();
  await context.route('https://huggingface.co/**', (route) => route.abort('internetdisconnected'));
});
after(async () => {
  await context?.close();
  await server?.close();
});
const open = (query, opts) => openCalculator(context, `${server.url}index.html?${query}`, opts);
const text = (page, selector) => page.locator(selector).first().innerText();
const fact = (page, key) => text(page, `#local-body [data-fact=${key}] dd`);

test('Run locally with 64 GB of RAM: gpt-oss-120b on an RTX 4090, experts in RAM, the CLI\'s layout, speed and command; remembered', async () => {
  const page = await open('model=gpt-oss-120b');
  await page.selectOption('#gpu', 'rtx4090');
  await page.fill('#ram-gb', '64');
  await page.click('#intents button[data-intent=run_locally]');
  const job = { ...intentJob('run_locally'), gpu: 'rtx4090', ram_gb: 64 };
  const expected = nativeJson('gpt-oss-120b', { ...job, model_id: hubId('gpt-oss-120b') });
  const local = expected.local;
  // experts in RAM: the smallest --n-cpu-moe that keeps --fit's margin, in the verdict, the layout and the command
  assert.ok(local.n_cpu_moe > 0 && local.n_cpu_moe < 36, `n_cpu_moe ${local.n_cpu_moe}`);
  assert.equal(await text(page, '#verdict'), expected.verdict.text);
  assert.equal(expected.verdict.text, local.verdict);
  assert.match(local.verdict, new RegExp(`--n-cpu-moe ${local.n_cpu_moe}\\).*system RAM [\\d.]+ GB of 64\\.00 GB`));
  assert.equal(await page.getAttribute('#verdict', 'data-status'), local.status);
  assert.equal(await page.isVisible('#local-panel'), true);
  assert.equal(await text(page, '#local-title'), 'On your machine');
  assert.equal(await fact(page, 'runtime'), local.runtime);
  assert.equal(await fact(page, 'layout'), local.layout_text);
  assert.match(local.layout_text, new RegExp(`first ${local.n_cpu_moe} of 36 layers in RAM \\(--n-cpu-moe ${local.n_cpu_moe}\\)`));
  assert.equal(await fact(page, 'decode'), local.speed.decode_text);
  assert.equal(await fact(page, 'prefill'), local.speed.prefill_text);
  assert.match(local.speed.decode_text, /^[\d.]+ tokens\/s \([\d.]+ – [\d.]+\)$/);
  // both pools, in the core's words
  assert.equal(await text(page, '#local-body tr[data-pool=gpu] .pool-text'), local.gpu.text);
  assert.equal(await text(page, '#local-body tr[data-pool=ram] .pool-text'), local.ram.text);
  assert.equal(await text(page, '#local-body tr[data-pool=ram] th'), local.ram.label);
  // the warnings: mmap paging and pinned host buffers
  assert.deepEqual(await page.locator('#local-body .local-warnings li').allInnerTexts(), local.warnings);
  assert.ok(local.warnings.some((w) => /memory-mapped/.test(w)) && local.warnings.some((w) => /pinned/.test(w)));
  // the smallest --n-cpu-moe, as --solve n_cpu_moe answers it, is what --fit chose: said once, in its line
  const solved = nativeJson('gpt-oss-120b', job, ['--solve', 'n_cpu_moe']);
  assert.equal(solved.answer, local.n_cpu_moe);
  assert.equal(local.fit.ran, true);
  assert.equal(await fact(page, 'fit'), local.fit.text);
  assert.equal(await page.locator('#local-body [data-fact=n-cpu-moe]').count(), 0);
  // the command: the core's, and exactly the CLI's own "Run it:" line
  const command = await page.locator('#local-body pre[data-command=llama-server]').innerText();
  assert.equal(command, expected.command.text);
  assert.equal(command, nativeCommand('gpt-oss-120b', job));
  assert.equal(await text(page, '#command'), command);
  assert.match(command, new RegExp(`^llama-server -m gpt-oss-120b-Q4_K_M\\.gguf .*--n-cpu-moe ${local.n_cpu_moe} `));
  // the machine's RAM and its bandwidth, said once under the control
  assert.equal(await text(page, '#machine-source'), `${local.machine.ram_text}: RAM bandwidth ${local.machine.bandwidth_source}.`);
  // the link carries the RAM; a reload and a new visit keep it
  const state = await waitForState(page, 'ram_gb', '64');
  assert.equal(state.get('gpu'), 'rtx4090');
  await page.reload();
  await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
  assert.equal(await page.inputValue('#ram-gb'), '64');
  assert.equal(await text(page, '#verdict'), expected.verdict.text);
  const later = await open('model=gpt-oss-120b&engine=llamacpp&dtype=q4_k_m&seq=4096&batch=1&n_gpu_layers=-1&mode=inference', { remembered: true });
  assert.equal(await later.inputValue('#ram-gb'), '64');
  assert.equal(await later.inputValue('#gpu'), 'rtx4090');
  assert.equal(await text(later, '#verdict'), expected.verdict.text);
  await screenshot(page, 'local-machine-gpt-oss-120b');
  assert.deepEqual(page.jsErrors, []);
  assert.deepEqual(later.jsErrors, []);
  assert.deepEqual(await cspViolations(page), []);
});

test('a link with the RAM opens it in a fresh visit; the docs\' example (MXFP4, --fit): 24 layers\' experts, 29.8 tokens/s', async () => {
  const page = await open('model=gpt-oss-120b&mode=inference&engine=llamacpp&gpu=rtx4090&ram_gb=64');
  assert.equal(await page.inputValue('#ram-gb'), '64');
  const job = { mode: 'inference', engine: 'llamacpp', gpu: 'rtx4090', ram_gb: 64 };
  const expected = nativeJson('gpt-oss-120b', { ...job, model_id: hubId('gpt-oss-120b') });
  // docs/machine.md's example, hand-checked there (tests/test_machine.cpp derives N = 24)
  assert.equal(expected.local.n_cpu_moe, 24);
  assert.equal(expected.local.speed.decode_text, '29.8 tokens/s (25.3 – 34.3)');
  assert.equal(await text(page, '#verdict'), expected.verdict.text);
  assert.equal(await fact(page, 'decode'), '29.8 tokens/s (25.3 – 34.3)');
  assert.equal(await fact(page, 'fit'), expected.local.fit.text);
  const command = await page.locator('#local-body pre[data-command=llama-server]').innerText();
  assert.equal(command, 'llama-server -m gpt-oss-120b-MXFP4.gguf -c 4096 -ngl 37 --n-cpu-moe 24 -fa on -ctk f16 -ctv f16');
  assert.equal(command, nativeCommand('gpt-oss-120b', job));
  // Copy puts exactly that text on the clipboard
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.replace(/\/$/, '') });
  await page.click('#local-body .command button.copy');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), command);
  assert.equal(await text(page, '#local-body .command button.copy .copy-state'), 'Copied');
  // A phone's width holds the panel and the band (the command scrolls in its own box).
  await page.click('#machine-more summary');
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  await screenshot(page, 'local-machine-390');
  await page.setViewportSize({ width: 1280, height: 1000 });
  // GiB: the RAM box follows the switch, and the link says ram_gib
  await page.check('#units-gib');
  assert.equal(await text(page, '#machine-ram-label'), 'System RAM (GiB)');
  const gib = await waitForState(page, 'ram_gib', '64');
  assert.equal(gib.has('ram_gb'), false);
  const inGib = nativeJson('gpt-oss-120b', { ...job, ram_gb: undefined, ram_gib: 64, units: 'gib', model_id: hubId('gpt-oss-120b') });
  assert.equal(await text(page, '#local-body tr[data-pool=ram] .pool-text'), inGib.local.ram.text);
  assert.deepEqual(page.jsErrors, []);
  // axe-core (last: the strict CSP refuses its inline script, which the console reports): the band and the panel
  assert.deepEqual(await axe(page), []);
});

test('llama.cpp before --fit (2025-08): -ngl as it would load, and the smallest --n-cpu-moe that keeps every layer on the GPU', async () => {
  const page = await open('model=gpt-oss-120b&mode=inference&engine=llamacpp&gpu=rtx4090&ram_gb=64&llamacpp_version=2025-08');
  const job = { mode: 'inference', engine: 'llamacpp', gpu: 'rtx4090', ram_gb: 64, llamacpp_version: '2025-08' };
  const expected = nativeJson('gpt-oss-120b', { ...job, model_id: hubId('gpt-oss-120b') });
  assert.equal(await text(page, '#verdict'), expected.verdict.text);
  assert.equal(await page.getAttribute('#verdict', 'data-status'), 'partial');
  assert.equal(await fact(page, 'layout'), expected.local.layout_text);
  assert.match(expected.local.layout_text, /^-ngl \d+ of 36 layers on the GPU$/);
  const solved = nativeJson('gpt-oss-120b', job, ['--solve', 'n_cpu_moe']);
  assert.equal(solved.answer, 24);
  assert.equal(await fact(page, 'n-cpu-moe'), solved.text);
  assert.equal(await page.locator('#local-body pre[data-command=llama-server]').innerText(), nativeCommand('gpt-oss-120b', job));
  assert.deepEqual(page.jsErrors, []);
});

test('a bad RAM value (0, -1, 1e9) is one error naming the field, as the CLI says it; the figures go grey, not stale', async () => {
  const page = await open('model=qwen3-30b-a3b&mode=inference&engine=llamacpp&gpu=rtx3070&ram_gb=32');
  assert.equal(await page.isVisible('#local-panel'), true);
  for (const bad of ['0', '-1', '1e9']) {
    await page.fill('#ram-gb', bad);
    const cli = nativeError('qwen3-30b-a3b', { mode: 'inference', engine: 'llamacpp', gpu: 'rtx3070', ram_gb: Number(bad) });
    assert.equal(cli.status, 2);
    const message = cli.stderr.trim().replace(/^vramcalc: error: job\.ram_gb: /, '');
    assert.match(message, /^must be more than 0 and at most 100,000 GB \(100 TB\), got /);
    assert.equal(await page.locator('.field-error').count(), 1, bad);
    assert.equal(await text(page, '.field-error'), message);
    assert.equal(await page.getAttribute('#ram-gb', 'aria-invalid'), 'true');
    assert.match(await text(page, '#error'), new RegExp(`^System RAM \\(GB\\): ${message.replace(/[()]/g, '\\$&')} \\(the figures below are the last valid ones\\)$`));
  }
  await page.fill('#ram-gb', '32');
  assert.equal(await page.locator('.field-error').count(), 0);
  assert.equal(await page.isHidden('#error'), true);
  assert.deepEqual(page.jsErrors, []);
});

test('a Mac shows its GPU share with the core\'s source; no GPU is a machine too; vLLM and Ollama print their lines', async () => {
  const page = await open('model=gpt-oss-120b&mode=inference&engine=llamacpp&gpu=m3-max-128');
  assert.equal(await page.isHidden('#machine-ram-box'), true);
  const mac = nativeJson('gpt-oss-120b', { mode: 'inference', engine: 'llamacpp', gpu: 'm3-max-128', model_id: hubId('gpt-oss-120b') });
  const m = mac.local.machine;
  assert.equal(m.unified, true);
  assert.match(m.share_source, /sysctl iogpu\.wired_limit_mb/);
  assert.equal(await text(page, '#machine-source'), `${m.gpu_text}: ${m.ram_text}; the GPU may use ${mac.local.gpu.have_text} of it (${m.share_source}).`);
  assert.equal(await text(page, '#local-body tr[data-pool=unified] .pool-text'), mac.local.ram.text);
  // no GPU: everything in RAM, at the RAM's speed
  await page.selectOption('#gpu', 'cpu');
  assert.equal(await page.isVisible('#machine-ram-box'), true);
  await page.fill('#ram-gb', '32');
  const cpu = nativeJson('gpt-oss-120b', { mode: 'inference', engine: 'llamacpp', gpu: 'cpu', ram_gb: 32, model_id: hubId('gpt-oss-120b') });
  assert.equal(await text(page, '#verdict'), cpu.verdict.text);
  assert.match(cpu.verdict.text, /no GPU/);
  assert.equal(await page.locator('#local-body pre[data-command=llama-server]').innerText(), cpu.command.text);
  // Ollama: its variables and the Modelfile, each copyable
  await page.selectOption('#gpu', 'rtx4090');
  await page.click('#recipe-box summary');
  await page.selectOption('#engine', 'ollama');
  const ollama = nativeJson('gpt-oss-120b', { mode: 'inference', engine: 'ollama', gpu: 'rtx4090', ram_gb: 32, model_id: hubId('gpt-oss-120b') });
  assert.equal(await page.locator('#local-body pre[data-command=ollama]').innerText(), ollama.command.text);
  assert.equal(await page.locator('#local-body pre[data-command=modelfile]').innerText(), ollama.command.modelfile);
  assert.equal(await text(page, '#verdict'), ollama.verdict.text);
  // vLLM: no local answer, its launch line with the memory flags the answer used
  await page.selectOption('#engine', 'vllm');
  const vllm = nativeJson('gpt-oss-120b', { mode: 'inference', engine: 'vllm', gpu: 'rtx4090', ram_gb: 32, model_id: hubId('gpt-oss-120b') });
  assert.equal(await text(page, '#local-title'), 'The command');
  assert.equal(await page.locator('#local-body pre[data-command=vllm]').innerText(), vllm.command.text);
  assert.match(vllm.command.text, /^vllm serve openai\/gpt-oss-120b --gpu-memory-utilization /);
  assert.equal(await page.locator('#local-body .local-pools').count(), 0);
  // a training job has no command: the panel goes
  await page.selectOption('#mode', 'train');
  assert.equal(await page.isHidden('#local-panel'), true);
  assert.deepEqual(page.jsErrors, []);
});

test('the widget with ram: the whole machine\'s verdict, the speed and the CLI\'s command; a bad ram is one error', async () => {
  post = `<!doctype html><html lang="en"><meta charset="utf-8"><title>post</title><link rel="icon" href="data:,">
<script type="module" src="widget.js"></script><main>
<vram-calc id="moe" model="gpt-oss-120b" engine="llamacpp" gpu="rtx4090" ram="64"></vram-calc>
<vram-calc id="small" model="qwen3-30b-a3b" dtype="q4_k_m" engine="llamacpp" gpu="rtx3070" ram="32" compact></vram-calc>
<vram-calc id="bad" model="gpt-oss-120b" engine="llamacpp" gpu="rtx4090" ram="0"></vram-calc>
<vram-calc id="twice" model="gpt-oss-120b" engine="llamacpp" ram="64" ram-gb="32"></vram-calc></main></html>`;
  const page = watchPage(await context.newPage());
  await page.goto(`${server.url}post.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total || w.dataset.error), null, { timeout: 30000 });
  const job = { mode: 'inference', engine: 'llamacpp', gpu: 'rtx4090', ram_gb: 64 };
  const expected = nativeJson('gpt-oss-120b', { ...job, model_id: hubId('gpt-oss-120b') });
  assert.equal(await text(page, '#moe .fit'), expected.verdict.text);
  assert.match(expected.verdict.text, /--n-cpu-moe 24\).*system RAM 41\.22 GB of 64\.00 GB/);
  assert.equal(await text(page, '#moe [data-fact=decode] dd'), expected.local.speed.decode_text);
  assert.equal(await text(page, '#moe tr[data-pool=ram] .pool-text'), expected.local.ram.text);
  assert.equal(await page.locator('#moe pre[data-command=llama-server]').innerText(), nativeCommand('gpt-oss-120b', job));
  // compact: the decode speed and the command stay, the pools go
  const small = { mode: 'inference', dtype: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx3070', ram_gb: 32 };
  const qwen = nativeJson('qwen3-30b-a3b', { ...small, model_id: hubId('qwen3-30b-a3b') });
  assert.equal(await text(page, '#small .fit'), qwen.verdict.text);
  assert.equal(await page.locator('#small pre[data-command=llama-server]').innerText(), nativeCommand('qwen3-30b-a3b', small));
  assert.equal(await page.locator('#small .local-pools').isVisible(), false);
  assert.equal(await page.locator('#small [data-fact=decode]').isVisible(), true);
  // ram="0": one error naming the field, no figures beside it
  const bad = await page.evaluate(() => document.getElementById('bad').dataset.error);
  assert.equal(bad, 'System RAM: must be more than 0 and at most 100,000 GB (100 TB), got 0');
  assert.equal(await page.locator('#bad .local').isVisible(), false);
  assert.match(await page.evaluate(() => document.getElementById('twice').dataset.error), /^System RAM: gives the RAM a second time \(ram_gb gives it too\); give one$/);
  // the attribute changes live, and -1 and 1e9 are refused the same way
  for (const value of ['-1', '1e9']) {
    const cliError = nativeError('gpt-oss-120b', { ...job, ram_gb: Number(value) }).stderr.trim().replace(/^vramcalc: error: job\.ram_gb: /, '');
    await page.evaluate((v) => document.getElementById('moe').setAttribute('ram', v), value);
    await page.waitForFunction((m) => document.getElementById('moe').dataset.error === `System RAM: ${m}`, cliError);
    assert.match(cliError, /^must be more than 0 and at most 100,000 GB \(100 TB\), got /);
    assert.equal(await page.locator('#moe .local').isVisible(), false);
  }
  await page.evaluate(() => document.getElementById('moe').setAttribute('ram', '64'));
  await page.waitForFunction(() => document.getElementById('moe').dataset.total);
  assert.equal(await text(page, '#moe .fit'), expected.verdict.text);
  // Open in vramcalc carries the RAM to the page
  const link = await page.locator('#moe a').getAttribute('href');
  assert.equal(stateOf(link).get('ram'), '64');
  const full = await openCalculator(context, link);
  assert.equal(await full.inputValue('#ram-gb'), '64');
  assert.equal(await text(full, '#verdict'), expected.verdict.text);
  await screenshot(page, 'local-machine-widget');
  assert.deepEqual(page.jsErrors, []);
  assert.deepEqual(await cspViolations(page), []);
});
