// Values given as text through the widget's attributes (web/widget.js reads them with the core's
// jobFromText): the one table of tests/fixtures/text-values.json, each case set on a <vram-calc>
// and read back from its answer (the vramcalc-update event's job) or its error. The same table
// runs through the CLI (tests/cli_test.sh) and the wasm under Node (tests/wasm/values.test.mjs).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, watchPage, repo } from './harness.mjs';

const table = JSON.parse(readFileSync(path.join(repo, 'tests', 'fixtures', 'text-values.json'), 'utf8'));
let server, context, page;
before(async () => {
  server = await startServer();
  context = await launchBrowser();
  page = watchPage(await context.newPage());
  await page.goto(`${server.url}embed-demo.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total));
});
after(async () => {
  await context?.close();
  await server?.close();
});

// Sets `attributes` on a fresh widget and resolves to the field's value in its answer, or its error.
function read(attributes, field) {
  return page.evaluate(([attrs, f]) => new Promise((resolve) => {
    const w = document.createElement('vram-calc');
    w.setAttribute('model', 'llama-3-8b');
    for (const [name, value] of attrs) w.setAttribute(name, value);
    const done = () => {
      const answer = w.dataset.error ? { error: w.dataset.error } : { value: w.lastJob?.[f] };
      w.remove();
      resolve(answer);
    };
    w.addEventListener('vramcalc-update', (e) => { w.lastJob = e.detail.job; done(); }, { once: true });
    document.body.append(w);
    // An error dispatches no update: poll for it.
    const poll = setInterval(() => { if (w.dataset.error) { clearInterval(poll); done(); } }, 20);
    setTimeout(() => { clearInterval(poll); done(); }, 5000);
  }), [attributes, field]);
}

// The widget words an error as the core's `text`: the field's label (core/text/field_labels.cpp) where the table
// has the field's id ("Batch (per GPU): must be …" for "job.batch: must be …").
const labelled = (error) => new RegExp(`^[A-Z][^:]*: ${error.replace(/^job\.\w+: /, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
test('the text-values table through widget attributes', async () => {
  for (const c of table.cases) {
    const got = await read([[c.field.replaceAll('_', '-'), c.text]], c.field);
    if ('error' in c) assert.match(got.error ?? '', labelled(c.error), `${c.field}=${JSON.stringify(c.text)}`);
    else assert.deepEqual(got, { value: c.value }, `${c.field}=${JSON.stringify(c.text)}`);
  }
  // A field given twice, as kv_dtype and kv-dtype: both spellings named.
  for (const c of table.twice.filter((t) => new Set(t.fields.map(([n]) => n)).size === t.fields.length)) {
    let want = c.error;
    for (const [name] of c.fields) want = want.replace(`{${name}}`, name);
    const got = await read(c.fields, '');
    assert.match(got.error ?? '', labelled(want));
  }
  assert.deepEqual(page.jsErrors, []);
});
