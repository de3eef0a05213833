// Values given as text through the wasm (core/api/job_text.hpp): the one table of
// tests/fixtures/text-values.json, read as URL parameters by jobFromText and valueFromText (the
// page's jobValue), then estimated. The same table runs through the CLI (tests/cli_test.sh,
// tests/test_values.cpp) and the widget's attributes (tests/browser/values.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadVramcalc, repo } from './load_wasm.mjs';
import { coreApi } from '../../web/core-api.mjs';

const vc = await loadVramcalc();
const api = coreApi(vc);
const table = JSON.parse(readFileSync(path.join(repo, 'tests', 'fixtures', 'text-values.json'), 'utf8'));
const models = JSON.parse(readFileSync(path.join(repo, 'models.json'), 'utf8')).models;
const llama = JSON.stringify(models.find((m) => m.id === 'llama-3-8b').config);
const defaults = JSON.parse(vc.options()).defaults;

// The field in the answer's job, or the whole error message.
function outcome(read) {
  if (!read.ok) return { error: read.error.message };
  const r = JSON.parse(vc.estimate(llama, JSON.stringify(read.job)));
  return r.ok ? { value: r.job[Object.keys(read.job)[0]] } : { error: r.error.message };
}

for (const c of table.cases) {
  test(`${c.field}=${JSON.stringify(c.text)} as a URL parameter`, () => {
    const expected = 'error' in c ? { error: c.error } : { value: c.value };
    assert.deepEqual(outcome(api.jobFromText([[c.field, c.text]], 'url')), expected);
    // valueFromText, by the kind of the field's default (what the page's jobValue asks): the same value.
    const kind = typeof defaults[c.field] === 'boolean' ? 'boolean' : typeof defaults[c.field] === 'number' ? 'number' : 'text';
    const one = api.valueFromText(c.text, kind);
    assert.equal(one.ok, true);
    assert.deepEqual(outcome({ ok: true, job: { [c.field]: one.value } }), expected);
  });
}

for (const c of table.twice) {
  test(`given twice: ${c.fields.map(([n]) => n).join(' and ')}`, () => {
    let want = c.error;
    for (const [name] of c.fields) want = want.replace(`{${name}}`, name);
    assert.deepEqual(outcome(api.jobFromText(c.fields, 'url')), { error: want });
  });
}

test('jobFromText refuses what is not a list of [name, text] pairs, and an unknown source', () => {
  assert.equal(api.jobFromText([['batch']], 'url').error.field, 'fields');
  assert.equal(api.jobFromText([], 'post').error.field, 'source');
  assert.equal(api.valueFromText('4', 'integer').error.field, 'kind');
  assert.deepEqual(api.clusterFromText([['gpus', '+8'], ['overlap_tp', 'true']], 'url'),
    { ok: true, cluster: { gpus: 8, overlap_tp: true } });
});
