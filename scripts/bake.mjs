// Writes web/index.html from web/page.html, so the first paint needs no file
// but the page itself and shows real numbers before the wasm core has arrived
// (issue 23; docs/page.md, "Speed"):
// - the default view's figures, from the native CLI, the same C++ core
//   (`vramcalc --bake`: the default job's estimate and its counterpart). Each
//   element marked data-baked="path" gets the text at that path of the bake
//   answer; the page marks them replaced when the core answers
//   (web/panels/results.js);
// - the stylesheets and first-view.js inline (each <link rel="stylesheet">
//   and the <script src="first-view.js">), with the SHA-256 of each in the
//   page's Content-Security-Policy (script-src, style-src), so no other inline
//   script or style runs. A host that sends the policy as a header sends the
//   same (web/_headers, written here; docs/page.md).
// Run by scripts/build.sh; tests/browser/your-gpus.test.mjs checks index.html
// holds the CLI's figures.
// Usage: node scripts/bake.mjs [web dir] [vramcalc binary]
import { createHash } from 'node:crypto';
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

// The CSP source allowing exactly this inline text.
const hashSource = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

// A Content-Security-Policy with sources added to some of its directives ({ 'script-src': [...], ... }).
export function withSources(policy, sources) {
  return policy.split(';').map((directive) => {
    const added = sources[directive.trim().split(/\s+/)[0]] ?? [];
    return added.length ? `${directive.trimEnd()} ${added.join(' ')}` : directive;
  }).join(';');
}

// The page with its stylesheets and first-view.js inline, and the policy (its <meta>) allowing just those.
export function inlinedPage(html, web) {
  const hashes = { 'script-src': [], 'style-src': [] };
  const read = (file, tag) => {
    const text = readFileSync(path.join(web, file), 'utf8');
    if (text.toLowerCase().includes(`</${tag}`)) throw new Error(`bake: ${file} holds "</${tag}", which would end the inline <${tag}>`);
    hashes[`${tag}-src`].push(hashSource(text));
    return text;
  };
  let out = html.replace(/<link rel="stylesheet" href="([^"]+)">/g, (all, file) => `<style>${read(file, 'style')}</style>`);
  out = out.replace('<script src="first-view.js"></script>', () => `<script>${read('first-view.js', 'script')}</script>`);
  if (!hashes['script-src'].length) throw new Error('bake: page.html has no <script src="first-view.js">');
  let policy = null;
  out = out.replace(/(<meta http-equiv="Content-Security-Policy" content=")([^"]+)(">)/, (all, open, content, close) => {
    policy = withSources(content, hashes);
    return `${open}${policy}${close}`;
  });
  if (!policy) throw new Error('bake: page.html has no Content-Security-Policy <meta>');
  return { html: out, policy };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const web = path.resolve(process.argv[2] ?? path.join(here, '..', 'web'));
  const cli = path.resolve(process.argv[3] ?? path.join(here, '..', 'build', 'vramcalc'));
  const bake = JSON.parse(execFileSync(cli, ['--bake'], { encoding: 'utf8' }));
  if (!bake.ok) throw new Error(`bake: ${bake.error?.message ?? 'the CLI refused the default view'}`);
  const { html, policy } = inlinedPage(bakedPage(readFileSync(path.join(web, 'page.html'), 'utf8'), bake), web);
  writeFileSync(path.join(web, 'index.html'), html);
  // Netlify's and Cloudflare Pages' header file; docs/page.md gives the same policy for nginx.
  writeFileSync(path.join(web, '_headers'), `/\n  Content-Security-Policy: ${policy}\n/index.html\n  Content-Security-Policy: ${policy}\n`);
  console.log(`index.html: the default view baked (${bake.model}: ${bake.estimate.total_text}), styles and first-view.js inline`);
}
