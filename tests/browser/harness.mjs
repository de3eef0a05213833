// Shared by the browser tests: a static file server over web/ and headless
// Debian Chromium driven by playwright-core (no browser download).
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

export async function startServer(root = webDir) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
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

export async function launchBrowser() {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath} (apt-get install chromium)`);
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'vramcalc-chromium-'));
  // A persistent context on a fresh profile: service workers behave as for a real visitor.
  return chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 1000 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export async function screenshot(page, name) {
  await mkdir(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

// Waits until the page's app reports it has computed once.
export async function openCalculator(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { state: 'attached', timeout: 30000 }).catch((e) => { throw new Error(`page did not start: ${errors.join('; ')} ${e.message}`); });
  page.jsErrors = errors;
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
