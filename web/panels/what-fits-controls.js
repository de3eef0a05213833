// The controls of "What can I run?" (panels/what-fits.js): the intent switch (the core's chat, serve, finetune), the
// order, the runtime and the context, and the filters (folded on a phone), each a value as typed or chosen that the
// core reads and names when it is wrong. The choices of family, licence and kind are the catalog's own values.
import { state } from '../state.js';
import { quoted } from '../vramcalc-client.js';
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);

// The list's intents (the core's names) and the page's intent each opens a row with (core/job/intents.cpp).
export const INTENTS = [
  { id: 'chat', page: 'run_locally', label: 'Chat', title: 'One conversation on your machine: llama.cpp, Ollama or MLX' },
  { id: 'serve', page: 'serve', label: 'Serve', title: 'Many users on vLLM or SGLang' },
  { id: 'finetune', page: 'fine_tune', label: 'Fine-tune', title: 'LoRA, else QLoRA (Unsloth)' },
];
const FROM_PAGE = Object.fromEntries(INTENTS.map((i) => [i.page, i.id]));
// Each intent's runtimes ('' = the intent's own: llama.cpp, vLLM; fine-tuning has one).
const ENGINES = {
  chat: [['', 'llama.cpp'], ['ollama', 'Ollama'], ['mlx', 'MLX (a Mac)']],
  serve: [['', 'vLLM'], ['sglang', 'SGLang']],
  finetune: [],
};
export const SORTS = [['size', 'Size'], ['speed', 'Speed'], ['headroom', 'Headroom'], ['name', 'Name']];
const SIZES = ['tiny', 'small', 'medium', 'large', 'frontier'];

export const listIntent = (wf = state.whatFits) => wf.intent || FROM_PAGE[state.intent] || 'chat';

function select(id, label, options) {
  const box = el('div', { class: 'wf-field' });
  const control = el('select', { id });
  control.append(...options.map(([value, text]) => new Option(text, value)));
  box.append(el('label', { for: id }, label), control);
  return box;
}
function number(id, label, placeholder) {
  const box = el('div', { class: 'wf-field' });
  const input = el('input', { id, type: 'number', min: '0', step: 'any', inputmode: 'decimal', placeholder });
  box.append(el('label', { for: id }, label), input);
  return box;
}
// The catalog's values of one field, each once, in order (the families, the licences, the modalities).
const valuesOf = (models, key) => [...new Set(models.map((m) => m[key]).filter((v) => typeof v === 'string' && v))]
  .sort((a, b) => a.localeCompare(b));

export function buildControls(section, models) {
  const title = el('h2', { id: 'wf-title', tabindex: '-1' }, 'What can I run?');
  const back = el('button', { type: 'button', id: 'wf-close', class: 'link-button' }, '← Back to the model');
  const head = el('div', { class: 'wf-head' });
  head.append(title, back);
  const machine = el('p', { id: 'wf-machine', class: 'wf-machine' });
  const intents = el('div', { id: 'wf-intents', class: 'intents wf-intents', role: 'group', 'aria-label': 'What for' });
  intents.append(...INTENTS.map((i) => el('button', { type: 'button', 'data-intent': i.id, 'aria-pressed': 'false', title: i.title }, i.label)));
  const modality = [['', 'Chat models'], ...valuesOf(models, 'modality').map((m) => [m, m[0].toUpperCase() + m.slice(1)]), ['any', 'Every kind']];
  const settings = el('div', { class: 'wf-filters', id: 'wf-settings' });
  settings.append(
    select('wf-sort', 'Sort by', SORTS),
    select('wf-engine', 'Runtime', ENGINES.chat),
    number('wf-seq', 'Context (tokens)', 'the intent\'s'),
  );
  const filters = el('div', { class: 'wf-filters', id: 'wf-filters' });
  filters.append(
    select('wf-family', 'Family', [['', 'All families'], ...valuesOf(models, 'family').map((f) => [f, f])]),
    select('wf-size', 'Size', [['', 'All sizes'], ...SIZES.map((s) => [s, s[0].toUpperCase() + s.slice(1)])]),
    select('wf-moe', 'Architecture', [['', 'Dense and MoE'], ['true', 'Mixture of experts'], ['false', 'Dense']]),
    select('wf-modality', 'Kind', modality),
    select('wf-license', 'Licence', [['', 'All licences'], ...valuesOf(models, 'license').map((l) => [l, l])]),
    number('wf-min_context', 'Trained context at least', 'any (tokens)'),
    number('wf-min_tps', 'Speed at least', 'any (tokens/s)'),
  );
  const runnable = el('label', { class: 'check wf-runnable' });
  runnable.append(el('input', { type: 'checkbox', id: 'wf-runnable' }), ' Only what runs');
  const reset = el('button', { type: 'button', id: 'wf-reset', class: 'link-button' }, 'Clear the filters');
  const tools = el('div', { class: 'wf-tools' });
  tools.append(runnable, reset);
  // The filters fold away (a phone shows the list sooner); open on a wide screen or when a filter is set.
  const more = el('details', { id: 'wf-more', class: 'wf-more' });
  more.append(el('summary', { id: 'wf-more-title' }, 'Filters'), filters, tools);
  more.open = matchMedia('(min-width: 761px)').matches;
  const table = el('table', { id: 'wf-list', class: 'wf-list', 'aria-labelledby': 'wf-title' });
  table.append(el('thead'), el('tbody'));
  const wrap = el('div', { class: 'table-wrap wf-wrap', id: 'wf-wrap' });
  wrap.append(table);
  section.replaceChildren(head, machine, intents, settings, more,
    el('p', { id: 'wf-config', class: 'wf-config', hidden: '' }),
    el('p', { id: 'wf-progress', class: 'wf-progress', role: 'status', hidden: '' }),
    el('div', { id: 'wf-error', class: 'error', role: 'alert', hidden: '' }),
    el('p', { id: 'wf-counts', class: 'wf-counts', 'aria-live': 'polite' }),
    el('p', { id: 'wf-steps', class: 'hint' }),
    el('div', { id: 'wf-empty', class: 'empty', hidden: '' }),
    wrap);
}

// The controls as the state says (after a link, Back, or an intent's change of runtimes).
export function showControls() {
  const wf = state.whatFits;
  const intent = listIntent();
  for (const b of $('wf-intents').querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.intent === intent));
  const engine = $('wf-engine');
  engine.replaceChildren(...ENGINES[intent].map(([value, text]) => new Option(text, value)));
  engine.closest('.wf-field').hidden = !ENGINES[intent].length;
  const values = { sort: wf.sort || 'size', engine: wf.engine, seq: wf.seq, ...wf.filters };
  for (const key of ['sort', 'engine', 'family', 'size', 'moe', 'modality', 'license']) choose($(`wf-${key}`), values[key] ?? '');
  for (const key of ['seq', 'min_context', 'min_tps']) $(`wf-${key}`).value = values[key] ?? '';
  $('wf-runnable').checked = wf.filters.runnable === 'true';
  if (showFilterCount()) $('wf-more').open = true;
  $('what-fits').dataset.intent = intent;
}
// The folded filters' title says how many are set; returns that count.
export function showFilterCount() {
  const set = Object.keys(state.whatFits.filters).length;
  $('wf-more-title').textContent = set ? `Filters (${set} set)` : 'Filters';
  return set;
}
// A value the list has no option for (an old or hand-written link) stays as given, for the core to read and name;
// its option says so in the core's quote of it (at most 60 characters: issue 37).
export function choose(control, value) {
  control.value = value;
  if (control.value === value) return;
  const option = new Option('(from the link)', value);
  control.append(option);
  control.value = value;
  quoted(value).then((q) => { option.textContent = `${q} (from the link)`; });
}

