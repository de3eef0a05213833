// The rows of "What can I run?" (panels/what-fits.js): one table row a model on wide screens, one card a model on a
// phone (the same cells; what-fits.css lays them out), each cell a text the core wrote (docs/what-fits.md, "The
// row"). The fit badge is LM Studio's words for the core's `fit`; the command has a copy button; a click on a row
// (or its model's button) opens that model's own answer with the row's job.
import { el } from '../render.js';

// LM Studio's words for how a model runs (its "Full GPU offload" / "Partial" badges), for the core's `fit`.
export const BADGES = {
  full: 'Full GPU', experts_in_ram: 'Experts in RAM', partial: 'Partial', cpu: 'CPU', fits: 'Fits',
  too_large: 'Too large', unsupported: 'Not supported',
};

// The columns: the header's words, the sort a header button asks the core for, and the cell's text (and a second,
// muted line: a pool's free memory, which the headroom order ranks by the GPU's).
const known = (pool) => pool?.known;
const pool = (p) => (known(p) ? [p.text, p.headroom_text] : [p?.text || '—']);
export const COLUMNS = [
  { key: 'model', title: 'Model', sort: 'name' },
  { key: 'size', title: 'Size', sort: 'size', text: (r) => [r.params_text] },
  { key: 'fit', title: 'Fit' },
  // A model sized at its own shorter trained context says so under its format.
  { key: 'format', title: 'Format', text: (r) => [r.format ?? '—', r.context_capped ? r.context_text : ''] },
  { key: 'gpu', title: 'GPU', sort: 'headroom', sortTitle: 'GPU · free', text: (r) => (known(r.gpu) ? pool(r.gpu) : ['—']) },
  { key: 'ram', title: 'RAM', text: (r) => pool(r.ram) },
  { key: 'speed', title: 'Speed', sort: 'speed', text: (r) => [r.speed?.known ? r.speed.text : '—'] },
  { key: 'command', title: 'Command' },
];

// Copies the command; where the clipboard is refused (no permission, an insecure page), selects its text instead.
async function copy(button, code) {
  let said = 'Copied';
  try {
    await navigator.clipboard.writeText(code.textContent);
  } catch {
    const range = document.createRange();
    range.selectNodeContents(code);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    said = 'Selected: press Ctrl+C';
  }
  button.textContent = said;
  setTimeout(() => { button.textContent = 'Copy'; }, 1500);
}

function modelCell(row, onOpen) {
  const cell = el('th', { scope: 'row', 'data-label': 'Model' });
  const open = el('button', { type: 'button', class: 'wf-open', title: `Open ${row.name}'s answer with this format, context and machine` }, row.name);
  open.addEventListener('click', () => onOpen(row));
  cell.append(open);
  if (row.pasted) cell.append(el('span', { class: 'wf-tag' }, 'your config'));
  return cell;
}

function fitCell(row) {
  const cell = el('td', { 'data-label': 'Fit' });
  const badge = el('span', { class: `wf-badge ${row.fit}`, title: row.verdict || row.fit_text }, BADGES[row.fit] ?? row.fit);
  const why = row.fit === 'unsupported' ? row.error?.message ?? row.fit_text : row.fit_text;
  cell.append(badge, el('span', { class: 'wf-why' }, why));
  return cell;
}

function commandCell(row) {
  const cell = el('td', { class: 'wf-command', 'data-label': 'Command' });
  if (!row.command) {
    cell.textContent = '—';
    return cell;
  }
  const code = el('code', {}, row.command);
  const button = el('button', { type: 'button', class: 'wf-copy', 'aria-label': `Copy the command for ${row.name}` }, 'Copy');
  button.addEventListener('click', () => copy(button, code));
  cell.append(code, button);
  return cell;
}

// One model's row: its cells in the columns' order; data-id and data-fit name it for the page and the tests.
export function rowFor(row, onOpen) {
  const tr = el('tr', { 'data-id': row.id, 'data-fit': row.fit, 'data-runs': String(row.runs) });
  for (const column of COLUMNS) {
    if (column.key === 'model') tr.append(modelCell(row, onOpen));
    else if (column.key === 'fit') tr.append(fitCell(row));
    else if (column.key === 'command') tr.append(commandCell(row));
    else {
      const [text, sub] = column.text(row);
      const td = el('td', { class: `wf-${column.key}`, 'data-label': column.title }, text);
      if (sub) td.append(el('span', { class: 'wf-sub' }, sub));
      tr.append(td);
    }
  }
  // A click anywhere on the row but its buttons and its command (which people select to copy) opens it too.
  tr.addEventListener('click', (e) => {
    if (e.target.closest('button, code') || getSelection().toString()) return;
    onOpen(row);
  });
  return tr;
}

// The header: each sortable column a button that asks the core for that order; aria-sort on the current one.
export function headerRow(sort, onSort) {
  const tr = el('tr');
  for (const column of COLUMNS) {
    const th = el('th', { scope: 'col', class: `wf-${column.key}` });
    if (column.sort) {
      const current = column.sort === sort;
      th.setAttribute('aria-sort', current ? (column.sort === 'name' ? 'ascending' : 'descending') : 'none');
      const button = el('button', { type: 'button', class: 'wf-sort', 'data-sort': column.sort }, column.sortTitle ?? column.title);
      button.addEventListener('click', () => onSort(column.sort));
      th.append(button);
    } else {
      th.textContent = column.title;
    }
    tr.append(th);
  }
  return tr;
}
