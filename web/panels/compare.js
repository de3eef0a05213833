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
  row('Job', setups.map((s) => s.subtitle), 'job', 'text');  // the core's recipe line: words, which wrap on a phone
  const ok = (s) => s.result.ok;
  const cell = (f) => setups.map((s) => (ok(s) ? f(s.result) ?? '—' : '—'));
  row('Verdict', setups.map((s) => (ok(s) ? s.result.verdict.text : s.result.error.message)), 'verdict', 'text');
  // Serving under vLLM / SGLang speaks in users and tokens: what they need, and the engine's own pool.
  const pooled = setups.some((s) => ok(s) && s.result.serving_view?.pooled);
  if (pooled) {
    const view = (r) => (r.serving_view?.pooled ? r.serving_view : null);
    row('Users × tokens', cell((r) => view(r)?.load_text));
    row('What the users need', cell((r) => view(r)?.need_text), 'total');
    row('KV they need', cell((r) => view(r)?.kv_needed_text));
    row("The engine's KV pool", cell((r) => view(r)?.pool_text));
    row('Users the pool holds', cell((r) => view(r)?.users_at_context_text));
  }
  const first = setups.find(ok)?.result;
  if (first) {
    first.terms.forEach((t, ti) => row(t.label, setups.map((s) => (ok(s) ? s.result.terms[ti].text : '—'))));
  }
  row(pooled ? 'The engine takes per GPU' : 'Total per GPU', setups.map((s) => (ok(s) ? s.result.total_text : s.result.error.message)),
    pooled ? '' : 'total');
  table.tBodies[0].replaceChildren(...rows);
}
