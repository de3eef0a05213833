// The widget as bloggers use it (issue 23, item 11): the npm package that
// scripts/pack_widget.sh packs (`npm pack`), installed with npm into a temp
// folder and served from there on one local origin, into a blog post on
// another (two servers on 127.0.0.1, two ports). With CORS its numbers equal
// the CLI's; without, the element keeps the blog's own text. Themes, compact,
// and an unknown model answered with the core's "did you mean".
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, watchPage, cspViolations, screenshot, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const native = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));
// The CLI's answer for a model and job fields as JSON (--job: job.gpu is the reader's GPU, as the widget's gpu="…").
let jobFiles;
async function nativeJob(model, job) {
  const file = path.join(jobFiles, `${model}-${Object.values(job).join('-')}.json`);
  await writeFile(file, JSON.stringify(job));
  return native(['--model', model, '--job', file]);
}
// The CLI's own error line ("vramcalc: error: model: unknown model …") for a job it refuses.
function nativeError(args) {
  try {
    execFileSync(cli, [...args, '--json'], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    return e.stderr.trim().replace(/^vramcalc: error: /, '');
  }
  throw new Error(`the CLI accepted ${args.join(' ')}`);
}

let installed;  // the package folder npm installed from the tarball
let cors = true;
let calculator, blog, context;
let post = '';
before(async () => {
  const temp = await mkdtemp(path.join(os.tmpdir(), 'vramcalc-widget-'));
  jobFiles = temp;
  const tarball = execFileSync(path.join(repo, 'scripts', 'pack_widget.sh'), [path.join(temp, 'pack')], { encoding: 'utf8' })
    .trim().split('\n').at(-1);
  const app = path.join(temp, 'blog');
  execFileSync('mkdir', ['-p', app]);
  await writeFile(path.join(app, 'package.json'), '{"name": "blog", "private": true}');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: app, stdio: 'pipe' });
  installed = path.join(app, 'node_modules', 'vramcalc-widget');
  calculator = await startServer(installed, { headers: () => (cors ? { 'access-control-allow-origin': '*' } : {}) });
  blog = await startServer(undefined, { override: (p) => (p === '/post.html' ? { type: 'text/html', body: post } : { status: 404 }) });
  context = await launchBrowser();
});
after(async () => {
  await context?.close();
  await calculator?.close();
  await blog?.close();
});

const FALLBACK = 'Loading the GPU memory calculator… If this line stays, it could not load on this page.';
// A post with the package's CDN-style script tag pointing at the other origin, and the given widgets.
async function openPost(widgets, { colorScheme = 'light' } = {}) {
  post = `<!doctype html><html lang="en"><meta charset="utf-8"><title>post</title><link rel="icon" href="data:,">
<script>window.refused = false;</script>
<script type="module" src="${calculator.url}widget.js" onerror="window.refused = true"></script><main><h1>My post</h1>${
  widgets.map((attrs) => `<vram-calc ${attrs}>${FALLBACK}</vram-calc>`).join('\n')}</main></html>`;
  const page = watchPage(await context.newPage());
  await page.emulateMedia({ colorScheme });
  await page.goto(`${blog.url}post.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total || w.dataset.error)
    || window.refused, null, { timeout: 20000 });
  return page;
}
const shown = (page, id, part) => page.evaluate(([i, p]) => document.getElementById(i).shadowRoot.querySelector(p).innerText, [id, part]);
const background = (page, id) => page.evaluate((i) => getComputedStyle(document.getElementById(i).shadowRoot.querySelector('.w')).backgroundColor, id);

test('the tarball: exports and files resolve, every file a shipped module asks for is shipped, no page inside', () => {
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.name, 'vramcalc-widget');
  for (const target of Object.values(manifest.exports)) assert.ok(existsSync(path.join(installed, target)), target);
  // A blog's build resolves the package's name through its exports, as Node does.
  const resolve = createRequire(path.join(installed, '..', '..', 'package.json')).resolve;
  assert.equal(resolve('vramcalc-widget'), path.join(installed, 'widget.js'));
  assert.equal(resolve('vramcalc-widget/widget.js'), path.join(installed, 'widget.js'));
  assert.throws(() => resolve('vramcalc-widget/core-client.js'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
  const shipped = new Set(readdirSync(installed));
  assert.deepEqual([...shipped].sort(), [...manifest.files, 'package.json', 'README.md'].sort());
  // Static imports, dynamic imports, importScripts and new URL('…', base) in the shipped scripts name shipped files.
  for (const file of manifest.files.filter((f) => /\.m?js$/.test(f) && f !== 'vramcalc.js')) {
    const text = readFileSync(path.join(installed, file), 'utf8');
    for (const [, name] of text.matchAll(/(?:from |new URL\()'\.?\/?([\w.-]+\.(?:m?js|wasm|json|css|html))'/g)) {
      if (name !== 'index.html') assert.ok(shipped.has(name), `${file} asks for ${name}`);
    }
  }
  // The package holds no calculator page: its widget links to one only when told (calculator="…").
  assert.match(readFileSync(path.join(installed, 'widget.js'), 'utf8'), /^const calculatorPage = null;$/m);
  // The README's CDN tag loads the package's entry point.
  assert.match(readFileSync(path.join(installed, 'README.md'), 'utf8'),
    /<script type="module" src="https:\/\/cdn\.jsdelivr\.net\/npm\/vramcalc-widget@[\d.]+\/widget\.js"><\/script>/);
});

test('from another origin with CORS: the installed package renders the CLI\'s numbers', async () => {
  cors = true;
  const train = native(['--model', 'llama-3-8b', '--mode', 'train']);
  const qlora = await nativeJob('llama-3.1-8b', { mode: 'qlora', gpu: 'rtx4090' });
  const page = await openPost(['id="train" model="llama-3-8b" mode="train"',
    'id="qlora" model="meta-llama/Llama-3.1-8B-Instruct" mode="qlora" gpu="rtx4090" calculator="https://calc.example/"']);
  assert.equal(await page.evaluate(() => document.getElementById('train').dataset.total), train.total_text);
  assert.equal(await shown(page, 'train', '.total'), `${train.total_text} ${train.total_scope_text}`);
  assert.equal(await shown(page, 'train', '.fit'), train.verdict.text);
  // Every term of the breakdown the job has, as the CLI prints it.
  const rows = await page.evaluate(() => [...document.getElementById('train').shadowRoot.querySelectorAll('tbody tr')]
    .map((r) => r.querySelector('.num').innerText));
  assert.deepEqual(rows, train.terms.filter((t) => t.bytes > 0).map((t) => t.text));
  assert.ok(rows.length >= 6);
  // A Hub id finds the catalog model; the verdict is about the reader's GPU.
  assert.equal(await shown(page, 'qlora', '.name'), 'Llama 3.1 8B');
  assert.equal(await shown(page, 'qlora', '.fit'), qlora.verdict.text);
  assert.match(qlora.verdict.text, /^✓ fits your RTX 4090/);
  // No page in the package: a link only where the element names the calculator.
  assert.equal(await page.evaluate(() => document.getElementById('train').shadowRoot.querySelector('a').hidden), true);
  assert.match(await page.evaluate(() => document.getElementById('qlora').shadowRoot.querySelector('a').href), /^https:\/\/calc\.example\/#s=/);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(page.jsErrors, []);
  await screenshot(page, 'widget-package-light');
});

test('from another origin without CORS: the element keeps the blog\'s own text', async () => {
  cors = false;
  try {
    const page = await openPost(['id="w" model="llama-3-8b"']);
    assert.equal(await page.evaluate(() => window.refused && customElements.get('vram-calc')), undefined);
    assert.equal(await page.locator('#w').innerText(), FALLBACK);
  } finally {
    cors = true;
  }
});

test('theme: light by default on a dark OS, dark when asked, auto follows the OS; compact leaves out the breakdown', async () => {
  const white = 'rgb(255, 255, 255)';
  const dark = 'rgb(23, 29, 36)';  // parts.css's dark --panel
  const widgets = ['id="plain" model="llama-3-8b"', 'id="light" theme="light" model="llama-3-8b"',
    'id="dark" theme="dark" model="llama-3-8b"', 'id="auto" theme="auto" model="llama-3-8b"',
    'id="compact" compact model="llama-3-8b" mode="qlora"'];
  const onDark = await openPost(widgets, { colorScheme: 'dark' });
  assert.deepEqual(await Promise.all(['plain', 'light', 'dark', 'auto'].map((id) => background(onDark, id))), [white, white, dark, dark]);
  await screenshot(onDark, 'widget-package-dark');
  const onLight = await openPost(widgets, { colorScheme: 'light' });
  assert.deepEqual(await Promise.all(['plain', 'light', 'dark', 'auto'].map((id) => background(onLight, id))), [white, white, dark, white]);
  // compact: the total and the verdict, no bar, no table; a smaller box than the full widget
  const qlora = native(['--model', 'llama-3-8b', '--mode', 'qlora']);
  assert.equal(await shown(onLight, 'compact', '.total'), `${qlora.total_text} ${qlora.total_scope_text}`);
  assert.equal(await shown(onLight, 'compact', '.fit'), qlora.verdict.text);
  assert.equal(await onLight.locator('#compact table').isVisible(), false);
  assert.equal(await onLight.locator('#compact .bar').isVisible(), false);
  const height = (id) => onLight.locator(`#${id}`).evaluate((w) => w.getBoundingClientRect().height);
  assert.ok(await height('compact') < (await height('plain')) / 2);
});

test('an unknown model gets the core\'s "did you mean", and errors name fields in words', async () => {
  const page = await openPost(['id="typo" model="lama-3-8b"', 'id="alias" model="llama3"', 'id="batch" model="llama-3-8b" batch="-3"']);
  const typo = await shown(page, 'typo', '.error');
  assert.equal(typo, "Model: unknown model 'lama-3-8b'; did you mean llama-3-8b or llama-3.1-8b?");
  assert.equal(typo, `Model: ${nativeError(['--model', 'lama-3-8b']).replace(/^model: /, '')}`);
  assert.equal(await shown(page, 'alias', '.name'), 'Llama 3 8B');
  assert.equal(await page.evaluate(() => document.getElementById('alias').dataset.total), native(['--model', 'llama-3-8b']).total_text);
  const batch = await shown(page, 'batch', '.error');
  assert.equal(batch, `Batch (per GPU): ${nativeError(['--model', 'llama-3-8b', '--batch', '-3']).replace(/^job\.batch: /, '')}`);
  assert.doesNotMatch(batch, /job\./);
});
