// The widget on a blog of another origin (issue 25): with CORS it computes in
// a worker started from a same-origin Blob; without CORS, with a CSP that
// refuses that worker, or under Trusted Types that do not allow its policy,
// the element says why in plain words. Under require-trusted-types-for
// 'script' it works, on its own origin and on another. Two local servers on
// 127.0.0.1 (two ports: two origins).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startServer, launchBrowser, watchPage, cspViolations, STRICT_CSP, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const nativeTotal = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' })).total_text;
const TRAIN = nativeTotal(['--model', 'llama-3-8b', '--mode', 'train']);
const TT = "require-trusted-types-for 'script'";

// The calculator's server: CORS for every file ('all'), for scripts and styles only ('scripts'), or none;
// `scriptCsp`: a policy sent with every script too (a worker's own policy comes with its script).
let cors = 'all';
let scriptCsp = null;
let calculator, blog, context;
let post = null;  // { csp, body } of the blog page
before(async () => {
  calculator = await startServer(undefined, { headers: (p) => ({
    ...((cors === 'all' || (cors === 'scripts' && /\.(m?js|css)$/.test(p))) ? { 'access-control-allow-origin': '*' } : {}),
    ...(scriptCsp && /\.m?js$/.test(p) ? { 'content-security-policy': scriptCsp } : {}),
  }) });
  blog = await startServer(undefined, { override: (p) => (p === '/post.html'
    ? { type: 'text/html', body: post.body, headers: { 'content-security-policy': post.csp } } : { status: 404 }) });
  context = await launchBrowser();
});
after(async () => {
  await context?.close();
  await calculator?.close();
  await blog?.close();
});

const origin = () => calculator.url.replace(/\/$/, '');
// A blog post with one widget from the calculator's origin, as the Embed button writes it (with its fallback line).
function blogPost({ csp }) {
  post = { csp, body: `<!doctype html><html lang="en"><meta charset="utf-8"><title>post</title><link rel="icon" href="data:,"><script type="module" src="${origin()}/widget.js"></script>
<main><h1>My post</h1><vram-calc id="w" model="llama-3-8b" mode="train">Loading the GPU memory calculator… If this line stays,
it could not load on this page: <a href="${origin()}/index.html">open this estimate on vramcalc</a>.</vram-calc></main></html>` };
  return `${blog.url}post.html`;
}
// The host's policy: scripts, styles and fetches from the calculator's origin, workers from blob:.
const hostCsp = (extra = '') => `default-src 'self'; script-src 'self' ${origin()} 'wasm-unsafe-eval'; style-src 'self' ${origin()}; ` +
  `connect-src ${origin()}; worker-src blob:; img-src 'self' data:; object-src 'none'; base-uri 'self'${extra}`;

// The widget's answer (its total) or what it says instead (its error, or the fallback line when it never ran).
async function widgetSays(url) {
  const page = watchPage(await context.newPage());
  await page.goto(url);
  await page.waitForFunction(() => {
    const w = document.getElementById('w');
    return w.dataset.total || w.dataset.error || (performance.now() > 4000 && !customElements.get('vram-calc'));
  }, null, { timeout: 20000 });
  const said = await page.evaluate(() => {
    const w = document.getElementById('w');
    if (!customElements.get('vram-calc')) return { fallback: w.innerText.replace(/\s+/g, ' ').trim() };
    return w.dataset.total ? { total: w.dataset.total } : { error: w.shadowRoot.querySelector('.error').innerText };
  });
  return { said, page };
}

test('another origin with CORS: the widget computes in a Blob-started worker, as the page does', async () => {
  cors = 'all';
  const { said, page } = await widgetSays(blogPost({ csp: hostCsp() }));
  assert.deepEqual(said, { total: TRAIN });
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(page.jsErrors, []);
  // its link opens the calculator on its own origin, the state in the fragment
  assert.match(await page.evaluate(() => document.getElementById('w').shadowRoot.querySelector('a').href),
    new RegExp(`^${origin()}/index\\.html#s=`));
});

test('another origin without CORS: the element keeps its line saying the calculator could not load', async () => {
  cors = 'none';
  const { said } = await widgetSays(blogPost({ csp: hostCsp() }));
  assert.deepEqual(said, { fallback: 'Loading the GPU memory calculator… If this line stays, it could not load on this page: open this estimate on vramcalc.' });
});

test('CORS on scripts but not on the wasm: the element says the server does not let this page use the files', async () => {
  cors = 'scripts';
  const { said } = await widgetSays(blogPost({ csp: hostCsp() }));
  assert.match(said.error, new RegExp(`^The calculator could not start: its core \\(${origin()}/vramcalc\\.wasm\\) could not be fetched\\. ` +
    `${origin()} did not let this page use the calculator's files \\(offline, or that server does not send Access-Control-Allow-Origin\\)\\.$`));
});

test('a host CSP without blob: workers: the element says which directive its worker needs', async () => {
  cors = 'all';
  const { said } = await widgetSays(blogPost({ csp: hostCsp().replace('worker-src blob:', "worker-src 'self'") }));
  assert.match(said.error, /^The calculator could not start: its worker was refused\. This page's Content-Security-Policy does not allow its worker \(it needs worker-src blob:\)\.$/);
});

test('Trusted Types: the widget works under require-trusted-types-for \'script\', on its own origin and on another', async () => {
  cors = 'all';
  scriptCsp = TT;  // the same-origin worker's own script is under Trusted Types too
  try {
    // Its own origin: the demo page, served with Trusted Types required.
    const own = await startServer(undefined, { csp: `${STRICT_CSP}; ${TT}`, headers: (p) => (/\.m?js$/.test(p) ? { 'content-security-policy': TT } : {}) });
    try {
      const page = watchPage(await context.newPage());
      await page.goto(`${own.url}embed-demo.html`);
      await page.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total || w.dataset.error));
      assert.equal(await page.evaluate(() => document.getElementById('train').dataset.total), TRAIN);
      assert.deepEqual(await cspViolations(page), []);
      assert.deepEqual(page.jsErrors, []);
    } finally {
      await own.close();
    }
    // Another origin: the Blob worker inherits the host's Trusted Types.
    const { said, page } = await widgetSays(blogPost({ csp: hostCsp(`; ${TT}`) }));
    assert.deepEqual(said, { total: TRAIN });
    assert.deepEqual(await cspViolations(page), []);
    // A host whose trusted-types directive does not list the widget's policy: the element says so.
    const refused = await widgetSays(blogPost({ csp: hostCsp(`; ${TT}; trusted-types blog-policy`) }));
    assert.match(refused.said.error, /^The calculator could not start: its worker was refused\. This page's Trusted Types rules do not allow it: its trusted-types directive must list the policy 'vramcalc'\.$/);
  } finally {
    scriptCsp = null;
  }
});
