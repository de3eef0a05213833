// <vram-calc view="what-fits">: the top of "What can I run?" (issue 35, docs/what-fits.md) for the machine the
// attributes name (gpu, gpus, device-gb, ram-gb, and any job field: engine, seq, …), the intent (chat, serve,
// finetune, or the page's run_locally / fine_tune), the order (sort: size, speed, headroom, name) and how many rows
// (rows, 5 by default). The core lists, sorts and writes every figure; this module shows the first rows, each with
// LM Studio's fit badge, its format, its speed and its GPU use, and links to the whole list on the calculator.
import { loadModels, whatFits, jobFromText, quoted } from './vramcalc-client.js';
import { el } from './render.js';
import { stateLink } from './link.js';

export const WHAT_FITS_VIEW = 'what-fits';
const BADGES = { full: 'Full GPU', experts_in_ram: 'Experts in RAM', partial: 'Partial', cpu: 'CPU', fits: 'Fits', too_large: 'Too large', unsupported: 'Not supported' };
const MAX_ROWS = 50;
// The machine's fields (Your GPUs on the calculator), and the list's names of the page's intents.
const MACHINE = ['gpu', 'gpus', 'device_gb', 'device_gib', 'ram_gb', 'units'];
const LIST_INTENTS = { run_locally: 'chat', fine_tune: 'finetune' };
const boxes = new WeakMap();  // each element's list box, made on its first list

function boxOf(widget, parts) {
  let box = boxes.get(widget);
  if (!box) {
    box = { root: el('div', { class: 'wf', 'aria-live': 'polite' }), machine: el('p', { class: 'wf-machine' }), list: el('ol', { class: 'wf-rows' }),
      counts: el('p', { class: 'wf-counts' }) };
    box.root.append(box.machine, box.counts, box.list);
    parts.link.before(box.root);
    parts.link.before(el('link', { rel: 'stylesheet', href: new URL('widget-what-fits.css', import.meta.url).href }));
    boxes.set(widget, box);
  }
  return box;
}

// Back to the single-model view: the list box steps aside.
export function hideWhatFits(widget) {
  const box = boxes.get(widget);
  if (box) box.root.hidden = true;
}

// How many rows the rows attribute asks for (1 to 50), or the error naming it.
async function rowCount(text) {
  if (text === null) return { n: 5 };
  const n = /^\d{1,2}$/.test(text.trim()) ? Number(text.trim()) : 0;
  if (n >= 1 && n <= MAX_ROWS) return { n };
  return { error: `rows: must be a whole number from 1 to ${MAX_ROWS}, got '${await quoted(text)}'` };
}

function rowItem(row) {
  const li = el('li', { 'data-id': row.id, 'data-fit': row.fit });
  const head = el('div', { class: 'wf-row-head' });
  head.append(el('strong', {}, row.name), el('span', { class: `wf-badge ${row.fit}`, title: row.verdict || row.fit_text }, BADGES[row.fit] ?? row.fit));
  const figures = [row.format, row.speed?.known ? row.speed.text : '', row.gpu?.known ? `GPU ${row.gpu.text}` : '',
    row.ram?.known ? `RAM ${row.ram.text}` : ''].filter(Boolean);
  li.append(head, el('span', { class: 'wf-row-figures' }, figures.join(' · ')));
  return li;
}

// widget: the element; parts: its shadow parts (widget.js build); fields: its job attributes as [name, text];
// current(): whether this answer is still the element's latest; busy(on), fail(message): the element's own.
export async function showWhatFits(widget, parts, { fields, current, busy, fail: failed, calculator }) {
  // Nothing of an earlier list stays beside an error; while a newer one is on its way the old one is dimmed.
  const fail = (message) => {
    hideWhatFits(widget);
    failed(message);
  };
  boxes.get(widget)?.root.classList.add('pending');
  const count = await rowCount(widget.getAttribute('rows'));
  if (!current()) return;
  if (count.error) return fail(count.error);
  const [models, read] = await Promise.all([loadModels().catch((e) => ({ error: e })), jobFromText(fields, 'attribute')]);
  if (!current()) return;
  if (models.error) return fail(models.error.message);
  if (!read.ok) return fail(read.error.text ?? read.error.message);
  const intent = widget.getAttribute('intent');
  const sort = widget.getAttribute('sort');
  const request = { job: read.job, ...(intent ? { intent } : {}), ...(sort ? { sort } : {}) };
  const answer = await whatFits(models, request);
  if (!current()) return;
  if (!answer.ok) return fail(answer.error.text ?? answer.error.message);
  busy(false);
  const box = boxOf(widget, parts);
  parts.error.hidden = true;
  parts.result.hidden = true;
  box.root.hidden = false;
  box.root.classList.remove('pending');
  parts.name.textContent = 'What can I run?';
  parts.mode.textContent = '';
  box.machine.textContent = `${answer.machine.text}; ${answer.intent_text}.`;
  if (answer.empty) {
    box.counts.textContent = answer.empty.message;
    box.list.replaceChildren();
  } else {
    const top = answer.rows.slice(0, count.n);
    box.counts.textContent = `${answer.runnable} of ${answer.count} models run; the first ${top.length} by ${answer.sort}:`;
    box.list.replaceChildren(...top.map(rowItem));
  }
  // The whole list on the calculator: the machine, and the list's intent, order, runtime and context.
  parts.link.hidden = !calculator;
  if (calculator) {
    const q = new URLSearchParams({ view: WHAT_FITS_VIEW });
    for (const [key, value] of Object.entries(read.job)) {
      if (MACHINE.includes(key)) q.set(key, String(value));
      else if (key === 'engine' || key === 'seq') q.set(`wf_${key}`, String(value));
    }
    if (intent) q.set('wf_intent', LIST_INTENTS[intent] ?? intent);
    if (sort) q.set('wf_sort', sort);
    const href = await stateLink(calculator, q);
    if (current()) parts.link.href = href;
  }
  delete widget.dataset.error;
  widget.dataset.rows = String(box.list.children.length);
  widget.dispatchEvent(new CustomEvent('vramcalc-update', { detail: answer }));
}
