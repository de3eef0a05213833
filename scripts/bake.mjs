// Writes the default view's figures into web/index.html, so the first paint
// shows real numbers before the wasm core has arrived (issue 23). They come
// from the native CLI, the same C++ core (`vramcalc --bake`: the default job's
// estimate and its counterpart). Each element marked data-baked="path" gets the
// text at that path of the bake answer; the page marks them replaced when the
// core answers (web/panels/results.js). Run by scripts/build.sh; the browser
// test tests/browser/your-gpus.test.mjs checks index.html holds the CLI's figures.
// Usage: node scripts/bake.mjs [web dir] [vramcalc binary]
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const escape = (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function bakedPage(html, bake) {
  const at = (key) => key.split('.').reduce((v, k) => v?.[k], bake);
  // <tag ... data-baked="estimate.total_text" ...>TEXT</tag>: only TEXT changes.
  return html.replace(/(<[a-z0-9]+\b[^>]*\sdata-baked="([^"]+)"[^>]*>)[^<]*(<\/)/g, (all, open, key, close) => {
    const value = at(key);
    if (typeof value !== 'string') throw new Error(`bake: no text at ${key}`);
    return `${open}${escape(value)}${close}`;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const web = path.resolve(process.argv[2] ?? path.join(here, '..', 'web'));
  const cli = path.resolve(process.argv[3] ?? path.join(here, '..', 'build', 'vramcalc'));
  const bake = JSON.parse(execFileSync(cli, ['--bake'], { encoding: 'utf8' }));
  if (!bake.ok) throw new Error(`bake: ${bake.error?.message ?? 'the CLI refused the default view'}`);
  const file = path.join(web, 'index.html');
  const before = readFileSync(file, 'utf8');
  const after = bakedPage(before, bake);
  if (after !== before) writeFileSync(file, after);
  console.log(`index.html: the default view baked (${bake.model}: ${bake.estimate.total_text}, ${after === before ? 'unchanged' : 'updated'})`);
}
