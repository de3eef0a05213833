// Writes <web>/sw.js from <web>/sw.template.js: FILES, every file the
// service worker precaches with its SHA-256, and VERSION, a hash of them all
// (a new build, a new cache). Run by scripts/build.sh; the browser tests run it
// on copies of web/ to make deploys of their own.
// usage: node scripts/make_sw.mjs [web folder]
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Not precached: the worker itself and its template; the page's source and what the build inlined into
// index.html (scripts/bake.mjs); the host's header file.
const SKIP = new Set(['sw.js', 'sw.template.js', 'page.html', 'first-view.js', '_headers']);

function filesUnder(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory()) return filesUnder(path.join(dir, entry.name), `${name}/`);
    return entry.isFile() && !SKIP.has(name) && !entry.name.startsWith('.') ? [name] : [];
  });
}

export function makeServiceWorker(web) {
  const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
  const files = Object.fromEntries(filesUnder(web).sort().map((name) => [name, sha(readFileSync(path.join(web, name)))]));
  const version = sha(JSON.stringify(files)).slice(0, 12);
  const template = readFileSync(path.join(web, 'sw.template.js'), 'utf8');
  const sw = template.replace("'__VERSION__'", `'${version}'`).replace('__FILES__', JSON.stringify(files, null, 1));
  writeFileSync(path.join(web, 'sw.js'), sw);
  return { version, files };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const { version, files } = makeServiceWorker(path.resolve(process.argv[2] ?? path.join(here, '..', 'web')));
  console.log(`sw.js: version ${version}, ${Object.keys(files).length} files with their SHA-256`);
}
