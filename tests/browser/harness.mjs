// Shared by the browser tests: a static file server over web/ and headless
// Debian Chromium driven by playwright-core (no browser download).
import { before, after } from 'node:test';
import http from 'node:http';
import { readFile, mkdtemp, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

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

// Options: csp (header for HTML, default STRICT_CSP), override(pathname) ->
// {status, type, body} | undefined to answer some files differently.
export async function startServer(root = webDir, { csp = STRICT_CSP, override, log } = {}) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    log?.push({ path: url.pathname, headers: req.headers });
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    const special = override?.(url.pathname);
    if (special) {
      res.writeHead(special.status ?? 200, { 'content-type': special.type ?? 'text/html' });
      res.end(special.body ?? '');
      return;
    }
    try {
      const body = await readFile(file);
      const type = types[path.extname(file)] || 'application/octet-stream';
      const headers = { 'content-type': type };
      if (type === 'text/html' && csp) headers['content-security-policy'] = csp;
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

export function watchPage(page) {
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

// Waits until the page's app reports it has computed once.
export async function openCalculator(context, url) {
  const page = watchPage(await context.newPage());
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

// Waits until the charts and comparisons (drawn just after the totals paint) are up to date.
export async function settled(page) {
  await page.waitForSelector('body:not([data-busy])', { state: 'attached', timeout: 15000 });
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
