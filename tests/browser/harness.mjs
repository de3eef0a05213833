// Shared by the browser tests: a static file server over web/ and headless
// Debian Chromium driven by playwright-core (no browser download).
import { before, after } from 'node:test';
import http from 'node:http';
import { readFile, mkdtemp, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { withSources } from '../../scripts/bake.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..');
export const webDir = path.join(repo, 'web');
export const screenshotDir = path.join(repo, 'tests', 'screenshots');

const types = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

// The policy a host should send (see /work/notes/page-readme.md): every page
// the tests open is served with it, so any inline script/style or eval fails.
export const STRICT_CSP = "script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; object-src 'none'; base-uri 'self'";

// A host sends the page's policy: the hashes of its inline styles and script (index.html, written by
// scripts/bake.mjs; web/_headers) join the header's script-src and style-src, so those run and nothing
// else inline does.
// The policy a page states in its <meta> ('' when none).
export const pagePolicy = (html) => html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1] ?? '';
export function withPageHashes(csp, html) {
  const hashes = {};
  for (const [name, ...sources] of pagePolicy(html).split(';').map((d) => d.trim().split(/\s+/))) {
    if (name === 'script-src' || name === 'style-src') hashes[name] = sources.filter((s) => s.startsWith("'sha256-"));
  }
  return withSources(csp, hashes);
}

// Options: csp (header for HTML, default STRICT_CSP), override(pathname, url) ->
// {status, type, body, headers} | undefined to answer some files differently,
// headers(pathname) -> extra headers for every answer (CORS, a CSP on scripts).
export async function startServer(root = webDir, { csp = STRICT_CSP, override, log, headers: extra } = {}) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    log?.push({ path: url.pathname, headers: req.headers });
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    const special = override?.(url.pathname, url);
    if (special) {
      res.writeHead(special.status ?? 200, { 'content-type': special.type ?? 'text/html', ...special.headers });
      res.end(special.body ?? '');
      return;
    }
    try {
      const body = await readFile(file);
      const type = types[path.extname(file)] || 'application/octet-stream';
      const headers = { 'content-type': type, ...extra?.(url.pathname) };
      if (type === 'text/html' && csp) headers['content-security-policy'] = withPageHashes(csp, body.toString('utf8'));
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}

// extraArgs: more Chromium switches (the page benchmark turns off the 60 Hz frame clock).
export async function launchBrowser({ extraArgs = [] } = {}) {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath} (apt-get install chromium)`);
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'vramcalc-chromium-'));
  // A persistent context on a fresh profile: service workers behave as for a real visitor.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 1000 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic', ...extraArgs],
  });
  // Every CSP violation on any page, for cspViolations(page).
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    }, true);
  });
  return context;
}

// CSP violations the page saw (events plus console reports), [] when none.
export async function cspViolations(page) {
  const events = await page.evaluate(() => window.__csp ?? []);
  return [...events, ...(page.cspConsole ?? [])];
}

// Console errors that are not defects: the optional cluster panel before it exists.
const expectedNoise = (m) => /panels\/cluster\.js$/.test(m.location()?.url ?? '');

// The state a calculator address holds (the compressed fragment, web/link.js;
// or an older link's query), as URLSearchParams.
export function stateOf(address) {
  const url = new URL(address);
  if (url.hash.startsWith('#s=')) {
    return new URLSearchParams(inflateRawSync(Buffer.from(url.hash.slice(3), 'base64url')).toString('utf8'));
  }
  return url.searchParams;
}

// Waits until the page's address holds `key` = `value` (written after a pause in typing), then returns the state.
export async function waitForState(page, key, value, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const q = stateOf(page.url());
    if (q.get(key) === value) return q;
    if (Date.now() > end) throw new Error(`the address never held ${key}=${value}: ${q}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The page computes in a worker: answers arrive after the input that asked.
// Actions wait until the page has finished computing (body[data-busy] gone)
// and reads wait for it first, so tests see the figures of their last input.
const ACTIONS = ['fill', 'selectOption', 'check', 'uncheck', 'click', 'dispatchEvent', 'setInputFiles', 'goBack', 'goForward', 'reload'];
const READS = ['innerText', 'textContent', 'inputValue', 'getAttribute', 'isVisible', 'isHidden', 'isChecked', 'count', 'allInnerTexts',
  'allTextContents', 'evaluateAll', 'boundingBox'];
function settleLocator(page, locator) {
  for (const name of READS) {
    const read = locator[name].bind(locator);
    locator[name] = async (...args) => { await settled(page); return read(...args); };
  }
  for (const name of ['first', 'last', 'nth', 'locator']) {
    const narrow = locator[name].bind(locator);
    locator[name] = (...args) => settleLocator(page, narrow(...args));
  }
  return locator;
}
function settlePage(page) {
  for (const name of ACTIONS) {
    const act = page[name].bind(page);
    page[name] = async (...args) => { const out = await act(...args); await settled(page); return out; };
  }
  for (const name of ['innerText', 'textContent', 'inputValue', 'getAttribute', 'isVisible', 'isHidden', 'isChecked']) {
    const read = page[name].bind(page);
    page[name] = async (...args) => { await settled(page); return read(...args); };
  }
  const press = page.keyboard.press.bind(page.keyboard);
  page.keyboard.press = async (...args) => { await press(...args); await settled(page); };
  const locate = page.locator.bind(page);
  page.locator = (...args) => settleLocator(page, locate(...args));
}

export function watchPage(page) {
  settlePage(page);
  const errors = [];
  page.cspConsole = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() !== 'error' || expectedNoise(m)) return;
    errors.push(m.text());
    if (/Content Security Policy/i.test(m.text())) page.cspConsole.push(m.text());
  });
  page.jsErrors = errors;
  return page;
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

// Waits until the page's app reports it has computed once. Each new tab starts with no
// GPU or RAM remembered from an earlier test (the page keeps "Your GPUs" in localStorage),
// unless `remembered`; a reload in the same tab keeps it, as for a visitor.
export async function openCalculator(context, url, { remembered = false } = {}) {
  const page = watchPage(await context.newPage());
  if (!remembered) {
    await page.addInitScript(() => {
      if (sessionStorage.getItem('vramcalc-test-tab')) return;
      sessionStorage.setItem('vramcalc-test-tab', '1');
      localStorage.removeItem('vramcalc.yourGpus');
      localStorage.removeItem('vramcalc.yourMachine');
    });
  }
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 30000 }).catch((e) => { throw new Error(`page did not start: ${page.jsErrors.join('; ')} ${e.message}`); });
  await settled(page);
  return page;
}

// Waits until the element's text matches, for results that arrive
// asynchronously (a fetch), then returns the text.
export async function waitForText(page, selector, regex, timeout = 15000) {
  await page.waitForFunction(([sel, source, flags]) => {
    const el = document.querySelector(sel);
    return el && new RegExp(source, flags).test(el.textContent);
  }, [selector, regex.source, regex.flags], { timeout });
  return page.locator(selector).first().innerText();
}

// Waits until the totals, charts and comparisons are up to date (the core
// answers from its worker; the panels are drawn just after the totals paint).
export async function settled(page) {
  await page.waitForSelector('body:not([data-busy]):not([data-searching])', { state: 'attached', timeout: 15000 });
}

// The usual set-up of a test file: the page served with the strict CSP and one
// browser context in which the Hub is unreachable (tests never touch the
// network; a test routes the Hub answers it needs). Returns { server, context },
// filled in before the first test.
export function offlineCalculator() {
  const env = { server: null, context: null };
  before(async () => {
    env.server = await startServer();
    env.context = await launchBrowser();
    await env.context.route('https://huggingface.co/**', (route) => route.abort('internetdisconnected'));
  });
  after(async () => {
    await env.context?.close();
    await env.server?.close();
  });
  return env;
}
