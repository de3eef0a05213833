// Several models on one GPU (issue 36; docs/serving.md "Several models on one GPU"): "+ add a model"
// beside the job, each an ordinary job with its model, engine and share (the job field
// `machine_jobs`, carried in the state and the link as the JSON text the core's jobFromText reads),
// and the core's `colocation` answer: its one verdict first, then each job's figures, its own test
// and its headroom. Values are read by the core's one value parser; every figure is the core's.
import { state } from '../state.js';
import { jobFromText } from '../vramcalc-client.js';
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);
// The share of the whole GPU each engine takes at start, by its own field's name (vLLM, SGLang).
const shareKey = { vllm: 'gpu_memory_utilization', sglang: 'mem_fraction_static' };
const engineTitles = { custom: 'None (plain sum)', hf: 'transformers', vllm: 'vLLM', sglang: 'SGLang', llamacpp: 'llama.cpp', ollama: 'Ollama', mlx: 'MLX' };
// A new model: an embedder, the commonest neighbour of an LLM (vLLM #13633), run by transformers; the core's
// defaults fill the rest.
const NEW_JOB = { model: 'bge-m3', engine: 'hf' };

let page = null;  // { options, onChange }
let entries = [];  // the machine jobs as objects, or null when the state's text is not a list of objects
let serial = 0;

// The state's text as entries (the link's, or the panel's own).
function read(text) {
  if (!text) return [];
  try {
    const list = JSON.parse(text);
    return Array.isArray(list) && list.every((e) => e && typeof e === 'object' && !Array.isArray(e)) ? list : null;
  } catch {
    return null;
  }
}

// push: a new history entry (a model added or removed, an engine chosen); typing replaces the current one.
function commit(push = true) {
  state.machineJobs = entries.length ? JSON.stringify(entries) : '';
  page.onChange(push);
}

// One field's text as the core reads it (a number, a flag), or the text itself when it breaks the field's
// rule, so the core names the field (job.machine_jobs[1].batch: …) when it reads the job.
async function typed(key, text) {
  if (key === 'model' || key === 'engine') return text;
  const answer = await jobFromText([[key, text]], 'url');
  return answer.ok && key in answer.job ? answer.job[key] : text;
}

function control(i, key, label, attrs, value) {
  const id = `colocation-${i}-${key}`;
  const wrap = el('div', { class: `colocation-${key}` });
  const input = key === 'engine' ? el('select', { id }) : el('input', { id, type: 'text', spellcheck: 'false', ...attrs });
  if (key === 'engine') {
    for (const e of page.options.engines) input.append(new Option(engineTitles[e] ?? e, e));
    if (![...input.options].some((o) => o.value === value)) input.append(new Option(String(value), String(value)));
  }
  input.value = value === undefined ? '' : String(value);
  input.dataset.index = String(i);
  input.dataset.key = key;
  wrap.append(el('label', { for: id }, label), input);
  return wrap;
}

function renderRows() {
  const box = $('colocation');
  // The heading once there is a model to head (on a phone the empty box stays one line: the verdict above the fold).
  const children = entries?.length === 0 ? [] : [el('h3', { class: 'colocation-title' }, 'Other models on this GPU')];
  if (entries === null) {
    // A link whose machine_jobs is not a list of jobs: its text, for the core to name and the user to mend.
    const raw = el('input', { id: 'colocation-raw', type: 'text', spellcheck: 'false' });
    raw.value = state.machineJobs;
    children.push(el('label', { for: 'colocation-raw' }, 'Models on this GPU (machine_jobs, JSON)'), raw);
  } else {
    entries.forEach((entry, i) => {
      const engine = entry.engine ?? page.options.defaults.engine;
      const row = el('div', { class: 'colocation-row', 'data-index': String(i) });
      row.append(control(i, 'model', `Model ${i + 2}`, { list: 'catalog-ids' }, entry.model),
        control(i, 'engine', 'Engine', {}, engine));
      if (shareKey[engine]) row.append(control(i, 'share', `Share of the GPU (${shareKey[engine]})`, { inputmode: 'decimal' }, entry[shareKey[engine]]));
      row.append(control(i, 'batch', 'Batch', { inputmode: 'numeric' }, entry.batch), control(i, 'seq', 'Sequence length', { inputmode: 'numeric' }, entry.seq));
      const remove = el('button', { type: 'button', id: `colocation-${i}-remove`, class: 'remove', 'aria-label': `Remove model ${i + 2}` }, 'Remove');
      row.append(remove);
      children.push(row);
    });
  }
  const add = el('button', { type: 'button', id: 'colocation-add', class: 'link-button' }, entries?.length === 0 ? '+ add a model on this GPU' : '+ add a model');
  children.push(add);
  box.replaceChildren(...children);
}

async function edited(target) {
  if (target.id === 'colocation-raw') {
    state.machineJobs = target.value;
    page.onChange(false);
    return;
  }
  const i = Number(target.dataset.index);
  const key = target.dataset.key;
  if (!entries?.[i] || !key) return;
  const mine = ++serial;
  const entry = entries[i];
  if (key === 'engine') {
    // The share moves to the new engine's own field; an engine that takes what it needs has none.
    const share = entry[shareKey[entry.engine ?? page.options.defaults.engine]];
    for (const k of Object.values(shareKey)) delete entry[k];
    entry.engine = target.value;
    if (shareKey[target.value] && share !== undefined) entry[shareKey[target.value]] = share;
    renderRows();
    $(`colocation-${i}-engine`)?.focus();
    commit();
    return;
  }
  const field = key === 'share' ? shareKey[entry.engine ?? page.options.defaults.engine] : key;
  const value = target.value === '' ? undefined : await typed(field, target.value);
  if (mine !== serial) return;
  if (value === undefined) delete entry[field]; else entry[field] = value;
  commit(false);
}

// options: the core's; models: the catalog (its ids offered for a model); onChange(push): recompute, write the address.
export function initColocation({ options, models, onChange }) {
  page = { options, onChange };
  $('catalog-ids').replaceChildren(...models.map((m) => el('option', { value: m.id }, m.name)));
  const box = $('colocation');
  box.addEventListener('input', (e) => { if (e.target.tagName === 'INPUT') edited(e.target); });
  box.addEventListener('change', (e) => { if (e.target.tagName === 'SELECT') edited(e.target); });
  box.addEventListener('click', (e) => {
    const button = e.target.closest('button');
    if (!button || entries === null && button.id !== 'colocation-add') return;
    if (button.id === 'colocation-add') {
      if (entries === null) entries = [];
      entries.push({ ...NEW_JOB });
      renderRows();
      $(`colocation-${entries.length - 1}-model`).focus();
    } else if (button.classList.contains('remove')) {
      const i = Number(button.closest('.colocation-row').dataset.index);
      entries.splice(i, 1);
      renderRows();
      ($(`colocation-${Math.min(i, entries.length - 1)}-remove`) ?? $('colocation-add')).focus();
    } else {
      return;
    }
    commit();
  });
  syncColocation();
}

// The rows for the state's machine_jobs (a link opened, Back or Forward).
export function syncColocation() {
  if (!page) return;
  entries = read(state.machineJobs);
  renderRows();
}

// The control an error about job.machine_jobs[i].key belongs to (page-compute.js), or null.
export function colocationControl(field) {
  const m = /^job\.machine_jobs(?:\[(\d+)\](?:\.(\w+))?)?/.exec(field);
  if (!m) return null;
  if (m[1] === undefined) return $('colocation-raw') ?? $('colocation-add');
  const key = Object.values(shareKey).includes(m[2]) ? 'share' : m[2];
  return $(`colocation-${m[1]}-${key}`) ?? $(`colocation-${m[1]}-model`);
}

// The core's answer for the shared GPU: its verdict first, then each job. (`colocation` of the estimate; the one
// answer of issue 33 carries the same object as its machine part's `shared`.)
export function renderColocation(result) {
  const box = $('colocation-answer');
  const c = result.colocation ?? result.machine?.shared;
  box.hidden = !c;
  if (!c) {
    box.replaceChildren();
    return;
  }
  const table = el('table', { class: 'colocation-jobs', 'aria-label': 'The jobs sharing this GPU' });
  const head = el('tr');
  for (const h of ['Job', 'Engine', 'On the GPU', 'Its own test', 'Headroom']) head.append(el('th', { scope: 'col' }, h));
  table.append(el('thead'), el('tbody'));
  table.tHead.append(head);
  for (const j of c.jobs) {
    const row = el('tr', { 'data-fits': String(j.own_fits) });
    row.append(el('th', { scope: 'row' }, j.label), el('td', {}, engineTitles[j.engine] ?? j.engine), el('td', { class: 'num' }, j.text),
      el('td', { class: 'how' }, `${j.own_fits ? '✓' : '✗'} ${j.why}`), el('td', { class: 'num' }, j.share > 0 ? j.headroom_text : '—'));
    table.tBodies[0].append(row);
  }
  const wrap = el('div', { class: 'table-wrap' });
  wrap.append(table);
  box.replaceChildren(el('h3', { id: 'colocation-title' }, 'This GPU, shared'),
    el('p', { class: 'verdict colocation-verdict', 'data-status': c.capacity_bytes > 0 ? (c.fits ? 'fits' : 'no') : 'none' }, c.verdict),
    wrap,
    el('p', { class: 'hint' }, 'Each job runs as its own process, with its own CUDA context. Below: this job alone.'));
}
