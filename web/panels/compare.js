// Comparisons: the precision × mode matrix for the chosen model (one core
// call), and 2–4 saved setups side by side, term by term.
import { modeTitle } from '../vramcalc-client.js';
import { el } from '../render.js';

// matrixAnswer: the core's matrix; job: the current job (its cell is marked).
export function renderMatrix(table, matrixAnswer, job) {
  const head = el('tr');
  head.append(el('th', { scope: 'col' }, 'Weights'), ...matrixAnswer.modes.map((m) => el('th', { scope: 'col', class: 'num' }, modeTitle(m))));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...matrixAnswer.rows.map((row) => {
    const tr = el('tr', { 'data-dtype': row.dtype });
    tr.append(el('th', { scope: 'row' }, row.label));
    row.cells.forEach((cell, i) => {
      // The core names the job's row (dtype auto: the format it falls back to).
      const current = row.dtype === (matrixAnswer.current_dtype ?? job.dtype) && matrixAnswer.modes[i] === job.mode;
      // Under vLLM / SGLang a cell says what the format leaves for KV (the core's text); with your GPU
      // given, the core says whether it fits (coloured).
      const fit = cell.error || cell.fits === undefined ? '' : cell.fits ? ' fit-yes' : ' fit-no';
      const td = el('td', { class: `num${current ? ' current' : ''}${cell.error ? ' refused' : ''}${fit}`, 'data-mode': matrixAnswer.modes[i] },
        cell.error ? '—' : matrixAnswer.shows === 'kv' && cell.text ? cell.text : cell.total_text);
      if (cell.error) td.title = cell.error;
      if (current) td.setAttribute('aria-current', 'true');
      tr.append(td);
    });
    return tr;
  }));
}

// setups: [{ title, lines: [...], result }] where result is the core's answer.
export function renderCompare(table, setups, onRemove) {
  table.hidden = setups.length === 0;
  if (!setups.length) {
    table.tHead.replaceChildren();  // no hidden Remove buttons left behind
    table.tBodies[0].replaceChildren();
    return;
  }
  const head = el('tr');
  head.append(el('th', { scope: 'col' }, 'Setup'));
  setups.forEach((s, i) => {
    const th = el('th', { scope: 'col' });
    th.append(el('span', {}, s.title));
    const remove = el('button', { type: 'button', class: 'remove', 'aria-label': `Remove setup ${i + 1}: ${s.title}` }, 'Remove');
    remove.addEventListener('click', () => onRemove(i));
    th.append(remove);
    head.append(th);
  });
  table.tHead.replaceChildren(head);
  const rows = [];
  const row = (label, cells, cls = '', cellClass = 'num') => {
    const tr = el('tr', cls ? { class: cls } : {});
    tr.append(el('th', { scope: 'row' }, label), ...cells.map((c) => el('td', { class: cellClass }, c)));
    rows.push(tr);
  };
  row('Job', setups.map((s) => s.subtitle), 'job', 'text');  // words, which wrap on a phone
  const first = setups.find((s) => s.result.ok)?.result;
  if (first) {
    first.terms.forEach((t, ti) => row(t.label, setups.map((s) => (s.result.ok ? s.result.terms[ti].text : '—'))));
  }
  row('Total per GPU', setups.map((s) => (s.result.ok ? s.result.total_text : s.result.error.message)), 'total');
  table.tBodies[0].replaceChildren(...rows);
}
