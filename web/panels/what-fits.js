// "What can I run?" (issue 35): every model of the catalog, and a config pasted on the page, on your machine, each
// at the best format that runs (docs/what-fits.md). Reached from Your GPUs; a view of its own (view=what-fits in
// the link) in place of the single-model answer. The core sorts and filters (the order and the filters are sent to
// it) and writes every figure as text; the page does no arithmetic. The list runs in the page's worker (whatFits,
// vramcalc-client.js). The first list after the catalog is given prepares every model (1-3 s in wasm): a progress
// line says so, and rows for an older request are never shown as the current ones (while a newer list is on its
// way they are inert, marked busy and dimmed; on an error or an empty answer they go).
import { state, yourJobFields, machineJobFields } from '../state.js';
import { whatFits } from '../vramcalc-client.js';
import { el, markScrollable } from '../render.js';
import { whatFitsFromQuery, whatFitsParams, freshWhatFits } from '../what-fits-link.js';
import { configText, modelName } from './model.js';
import { yourControl } from './your-gpus.js';
import { rowFor, headerRow } from './what-fits-rows.js';
import { INTENTS, SORTS, listIntent, buildControls, showControls, showFilterCount, choose } from './what-fits-controls.js';

const $ = (id) => document.getElementById(id);
let page = null;  // { models, update, applyQuery, writeUrl, resumePanels }

// ---------------------------------------------------------------- the request

// The request for the state on screen: the intent, your machine (as Your GPUs sends it), the context and runtime,
// the filters and the order, and the page's own pasted or fetched config (listed beside the catalog's).
function currentRequest() {
  const wf = state.whatFits;
  const job = { ...yourJobFields(), ...machineJobFields() };  // the GPUs and the RAM (panels/your-machine.js)
  if (wf.seq) job.seq = wf.seq;
  if (wf.engine) job.engine = wf.engine;
  const request = { intent: listIntent(), job };
  if (wf.sort) request.sort = wf.sort;
  const filters = Object.fromEntries(Object.entries(wf.filters).filter(([, v]) => v !== ''));
  if (Object.keys(filters).length) request.filters = filters;
  const s = state.source;
  const text = s.kind === 'catalog' ? null : configText();
  if (text) request.configs = [{ name: modelName(), config: text }];
  return request;
}

function changed(e) {
  const wf = state.whatFits;
  const target = e.target;
  const key = target.id?.replace(/^wf-/, '');
  if (key === 'runnable') wf.filters.runnable = target.checked ? 'true' : '';
  else if (['sort', 'engine', 'seq'].includes(key)) wf[key] = target.value.trim();
  else if (['family', 'size', 'moe', 'modality', 'license', 'min_context', 'min_tps'].includes(key)) wf.filters[key] = target.value.trim();
  else return;
  if (!wf.filters[key]) delete wf.filters[key];
  showFilterCount();
  // A choice adds a history entry; typing replaces it (as the page's own form).
  page.writeUrl(e.type === 'change' && target.type !== 'number');
  refresh();
}

// ---------------------------------------------------------------- the view

export function showView() {
  const open = state.whatFits.open;
  // The answer's panels wait while the list covers them (page-compute.js); closed, they catch up.
  if (!open) page?.resumePanels?.();
  $('what-fits').hidden = !open;
  document.body.classList.toggle('what-fits-view', open);
  $('what-fits-open').setAttribute('aria-expanded', String(open));
}

function openList() {
  state.whatFits.open = true;
  showView();
  showControls();
  page.writeUrl(true);
  refresh();
  $('wf-title').focus();
}
function closeList() {
  state.whatFits.open = false;
  showView();
  page.writeUrl(true);
  $('model-jump')?.focus();
}

// A link, Back or Forward: the list's state from the address (page-url.js applyQuery).
export function applyWhatFits(q) {
  state.whatFits = whatFitsFromQuery(q);
  if (!page) return;
  showView();
  showControls();
  refresh();
}

// One click on a row: that model's own answer, with the row's job (its format, its context, the machine), as a
// link with that state would open it; the list's state stays in the link for the way back.
async function openRow(row) {
  const s = state.source;
  const q = new URLSearchParams();
  if (!row.pasted) q.set('model', row.id);
  else if (s.kind === 'paste') q.set('config', s.pasted);
  else q.set('hf', s.hubId);
  for (const [key, value] of Object.entries(row.job)) q.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  q.set('intent', INTENTS.find((i) => i.id === listIntent()).page);
  for (const setup of state.compare) q.append('cmp', setup);
  for (const [key, value] of whatFitsParams({ ...state.whatFits, open: false })) q.set(key, value);
  const hub = s.kind === 'hub' ? { id: s.hubId, text: s.hubText } : null;
  await page.applyQuery(q);
  if (hub && state.source.hubId === hub.id) state.source.hubText = hub.text;  // the config fetched already
  await page.update({ push: true });
  window.scrollTo(0, 0);
  $('model-jump')?.focus();
}

// ---------------------------------------------------------------- the answer

// busy: a newer request is on its way (the rows on screen dimmed and inert); filling: this answer's rows are still
// being added; ready, empty, error: the answer to the latest request is on screen, whole.
function setState(kind) {
  const section = $('what-fits');
  section.dataset.state = kind;
  const busy = kind === 'busy';
  if (busy || kind === 'filling') section.setAttribute('aria-busy', 'true'); else section.removeAttribute('aria-busy');
  $('wf-wrap').classList.toggle('pending', busy);
  $('wf-wrap').inert = busy;
}

function clearRows() {
  $('wf-list').tHead.replaceChildren();
  $('wf-list').tBodies[0].replaceChildren();
  $('wf-wrap').hidden = true;
  $('wf-counts').textContent = '';
  $('wf-steps').textContent = '';
}

// The control an error's field belongs to: the list's own, or Your GPUs'.
function controlFor(field = '') {
  const [head, key] = field.split('.');
  if (head === 'filters' || (head === 'job' && ['seq', 'engine'].includes(key))) return $(`wf-${key}`);
  if (head === 'sort' || head === 'intent') return $(head === 'sort' ? 'wf-sort' : 'wf-intents');
  return head === 'job' ? yourControl(key) : null;
}
// Outlines the panel's own control (an error about Your GPUs' fields is the page's to show under them: its own
// answer names the same field).
function markInvalid(control) {
  for (const c of $('what-fits').querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
  if (control && $('what-fits').contains(control)) control.setAttribute('aria-invalid', 'true');
}

function showError(error) {
  clearRows();
  $('wf-machine').textContent = '';
  const box = $('wf-error');
  box.textContent = error.text ?? error.message;
  box.hidden = false;
  markInvalid(controlFor(error.field));
}

// The page's pasted or fetched config in the list: listed, or the core's error naming it.
function showConfig(answer) {
  const line = $('wf-config');
  const s = state.source;
  const errors = answer.config_errors ?? [];
  line.hidden = s.kind === 'catalog' && !errors.length;
  line.classList.toggle('error', errors.length > 0);
  line.textContent = errors.length ? errors.map((e) => e.message).join('; ')
    : `Your ${modelName()} is in the list (marked "your config").`;
}

function render(answer) {
  $('wf-error').hidden = true;
  markInvalid(null);
  if (!answer.ok) return showError(answer.error);
  const m = answer.machine;
  $('wf-machine').replaceChildren(el('strong', {}, 'Your machine: '), `${m.text}; ${answer.intent_text}, ${answer.context_text}.`);
  showConfig(answer);
  const sort = SORTS.find(([id]) => id === answer.sort)?.[1].toLowerCase() ?? answer.sort;
  const empty = $('wf-empty');
  empty.hidden = !answer.empty;
  empty.replaceChildren();
  if (answer.empty) {
    clearRows();
    empty.append(el('p', {}, answer.empty.message));
    const control = controlFor(answer.empty.field);
    if (control) {
      const go = el('button', { type: 'button', class: 'link-button' }, answer.empty.field === 'filters' ? 'Clear the filters' : 'Set it');
      go.addEventListener('click', () => (answer.empty.field === 'filters' ? $('wf-reset').click() : control.focus()));
      empty.append(go);
    }
    if (answer.empty.field === 'filters') $('wf-steps').textContent = `Filters: ${answer.filter_steps.join('; ')}.`;
    return undefined;
  }
  $('wf-counts').textContent = `${answer.count} of ${answer.considered} models listed, ${answer.runnable} run; sorted by ${sort}.`;
  $('wf-steps').textContent = answer.filter_steps.length ? `Filters: ${answer.filter_steps.join('; ')}.` : '';
  const table = $('wf-list');
  table.tHead.replaceChildren(headerRow(answer.sort, sortBy));
  // The first screenful now; the rest in the tasks that follow (fill), so a long list never holds the page.
  table.tBodies[0].replaceChildren(...answer.rows.slice(0, FIRST_ROWS).map((row) => rowFor(row, openRow)));
  $('wf-wrap').hidden = false;
  markScrollable($('what-fits'));
  return undefined;
}

// The rows after the first screenful, a few dozen a task (each a few milliseconds of DOM and layout), while the
// answer is still the one wanted; resolves to whether every row is in.
const FIRST_ROWS = 40;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
async function fill(rows, key) {
  const body = $('wf-list').tBodies[0];
  for (let at = FIRST_ROWS; at < rows.length; at += FIRST_ROWS) {
    await nextTask();
    if (key !== wanted || !state.whatFits.open) return false;
    body.append(...rows.slice(at, at + FIRST_ROWS).map((row) => rowFor(row, openRow)));
  }
  return true;
}

function sortBy(sort) {
  state.whatFits.sort = sort === 'size' ? '' : sort;
  choose($('wf-sort'), sort);
  page.writeUrl(true);
  refresh();
}

// ---------------------------------------------------------------- asking the core

// One list on its way at a time; a newer request waits for it and is asked next, and an answer to an older request
// is never painted. The request on screen is `shown`; timings go to the Performance timeline: 'vramcalc:what-fits',
// the request to its first screenful of rows painted, and 'vramcalc:what-fits-all', to the last row painted (detail
// { first: the page's first list, rows }).
let shown = null;
let wanted = null;
let wantedRequest = null;
let running = false;
let lists = 0;
// After the next frame's paint (a task posted from its animation frame callback); a hidden tab paints no frame, so
// at most 250 ms later: the list never waits for the tab to be seen again.
const afterPaint = () => new Promise((resolve) => {
  const timer = setTimeout(resolve, 250);
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { clearTimeout(timer); resolve(); };
    channel.port2.postMessage(0);
  });
});

export async function refresh() {
  if (!page || !state.whatFits.open) return;
  wantedRequest = currentRequest();
  wanted = JSON.stringify(wantedRequest);
  if (wanted === shown) return;
  setState('busy');  // at once: the rows on screen are not this request's
  if (running) return;  // the list on its way is followed by this one
  running = true;
  try {
    while (state.whatFits.open && wanted !== shown) {
      const [key, request] = [wanted, wantedRequest];
      const first = lists === 0;
      const progress = $('wf-progress');
      // The first list prepares the whole catalog: said at once; a later one only when it is slow to come.
      const say = () => {
        progress.textContent = first ? 'Sizing every model of the catalog for your machine (the first list prepares them all: a second or two)…'
          : 'Sizing the list for your machine…';
        progress.hidden = false;
      };
      const timer = first ? (say(), 0) : setTimeout(say, 150);
      if (first) clearRows();
      const started = performance.now();
      const answer = await whatFits(page.models, request);
      clearTimeout(timer);
      if (key !== wanted) continue;  // a newer request: ask it, paint nothing of this one
      progress.hidden = true;
      render(answer);
      shown = key;
      lists += 1;
      const rows = answer.ok && !answer.empty ? answer.rows : [];
      setState(rows.length > FIRST_ROWS ? 'filling' : answer.ok ? (answer.empty ? 'empty' : 'ready') : 'error');
      await afterPaint();
      const detail = { first, rows: rows.length };
      performance.measure('vramcalc:what-fits', { start: started, end: performance.now(), detail });
      if (rows.length > FIRST_ROWS) {
        if (await fill(rows, key)) {
          await afterPaint();
          performance.measure('vramcalc:what-fits-all', { start: started, end: performance.now(), detail });
          if (key === wanted) setState('ready');
        } else if (key === wanted) {
          shown = null;  // closed before its last rows: asked again when the list is opened again
        }
      }
      if (wanted !== shown) setState('busy');
    }
  } finally {
    running = false;
  }
}

// ---------------------------------------------------------------- start

// context: { models, update, applyQuery, writeUrl, resumePanels } (app.js).
export function initWhatFits(context) {
  page = context;
  const section = $('what-fits');
  buildControls(section, page.models);
  $('what-fits-open').addEventListener('click', () => (state.whatFits.open ? $('wf-title').focus() : openList()));
  $('wf-close').addEventListener('click', closeList);
  $('wf-intents').addEventListener('click', (e) => {
    const intent = e.target.closest('button')?.dataset.intent;
    if (!intent || intent === listIntent()) return;
    state.whatFits.intent = intent;
    state.whatFits.engine = '';  // each intent has its own runtimes
    showControls();
    page.writeUrl(true);
    refresh();
  });
  for (const box of [$('wf-settings'), $('wf-more')]) {
    box.addEventListener('change', changed);
    box.addEventListener('input', (e) => { if (e.target.type === 'number') changed(e); });
  }
  $('wf-reset').addEventListener('click', () => {
    state.whatFits.filters = freshWhatFits().filters;
    showControls();
    page.writeUrl(true);
    refresh();
  });
  // Your machine changed (Your GPUs' own handler has updated the state by the next microtask).
  for (const type of ['change', 'input']) $('your-gpus').addEventListener(type, () => queueMicrotask(refresh));
  showView();
  showControls();
  refresh();
}
