// Renders web/icons/icon.svg to the PNG sizes the web app manifest lists (run once: node scripts/render-icons.mjs).
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
const svg = readFileSync(new URL('../web/icons/icon.svg', import.meta.url), 'utf8');
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
for (const size of [192, 512]) {
  const p = await b.newPage({ viewport: { width: size, height: size } });
  await p.setContent(`<html><body style="margin:0">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`);
  await p.screenshot({ path: new URL(`../web/icons/icon-${size}.png`, import.meta.url).pathname, omitBackground: true });
}
await b.close();
