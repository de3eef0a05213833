// DOM rendering of a core result, shared by the page and the widget. Sizes
// are set through the CSSOM (element.style), which a strict CSP allows;
// no style="" attribute is ever written.
export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';
export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// Stacked bar: one segment per non-zero term, sized by its share of the total.
export function renderBar(bar, result) {
  bar.replaceChildren();
  for (const t of result.terms) {
    if (t.bytes <= 0) continue;
    const seg = el('div', { class: `seg ${t.key}`, title: `${t.label}: ${t.text}`, 'data-term': t.key });
    seg.style.width = `${t.share * 100}%`;
    if (t.share > 0.08) seg.textContent = t.label;
    bar.appendChild(seg);
  }
  bar.setAttribute('aria-label', result.terms.filter((t) => t.bytes > 0).map((t) => `${t.label} ${t.text}`).join(', '));
}

export function renderBreakdownRows(tbody, result, withWhy = true) {
  // Same terms as shown: rewrite only the cells whose text changed (less layout per input).
  const rows = tbody.rows;
  if (rows.length === result.terms.length && result.terms.every((t, i) => rows[i].dataset.term === t.key)) {
    result.terms.forEach((t, i) => {
      const num = rows[i].cells[1];
      if (num.textContent !== t.text) num.textContent = t.text;
      const how = rows[i].cells[2];
      if (withWhy && how.textContent !== (t.why ?? '')) how.textContent = t.why ?? '';
    });
    return;
  }
  tbody.replaceChildren();
  for (const t of result.terms) {
    const row = el('tr', { 'data-term': t.key });
    const name = el('th', { scope: 'row' });
    name.append(el('span', { class: `swatch ${t.key}`, 'aria-hidden': 'true' }), document.createTextNode(t.label));
    row.append(name, el('td', { class: 'num' }, t.text));
    if (withWhy) row.append(el('td', { class: 'how' }, t.why ?? ''));
    tbody.appendChild(row);
  }
}

// The GPU table. Rows are kept and only changed cells rewritten when the GPU
// list is the same (every input would otherwise rebuild 40-odd rows).
export function renderFitRows(tbody, result) {
  const cells = (f) => [f.name, f.capacity_text, f.fits_as_configured ? '✓ fits' : '✗ too small',
    f.needed_text ?? String(f.gpus_needed)];
  const rows = tbody.rows;
  const same = rows.length === result.fits.length && result.fits.every((f, i) => rows[i].dataset.gpu === f.id);
  if (!same) {
    tbody.replaceChildren(...result.fits.map((f) => {
      const row = el('tr', { 'data-gpu': f.id });
      row.append(...cells(f).map((text, i) => el('td', i % 2 ? { class: 'num' } : {}, text)));
      return row;
    }));
  }
  result.fits.forEach((f, i) => {
    const row = rows[i];
    const cls = f.fits_as_configured ? 'ok' : 'no';
    if (row.className !== cls) row.className = cls;
    cells(f).forEach((text, c) => { if (row.cells[c].textContent !== text) row.cells[c].textContent = text; });
  });
}

// A list of whatever the core explains (notes, assumptions): strings, or
// objects shown as "label: value" from their text-like fields.
export function renderList(list, items) {
  list.replaceChildren(...(items ?? []).map((item) => {
    if (typeof item !== 'object' || item === null) return el('li', {}, String(item));
    const label = item.label ?? item.name ?? item.key ?? item.field ?? '';
    const value = item.text ?? item.value ?? item.why ?? item.note ?? '';
    return el('li', {}, label && value !== '' ? `${label}: ${value}` : String(label || value || JSON.stringify(item)));
  }));
  list.hidden = !list.children.length;
}

// A table wider than its box scrolls sideways; keyboard users reach it as a
// labelled tab stop and scroll it with the arrow keys (axe-core rule
// scrollable-region-focusable). Wrappers that fit are not tab stops.
export function markScrollable(root) {
  for (const wrap of root.querySelectorAll('.table-wrap, .vc-cl-scroll')) {
    const scrolls = wrap.scrollWidth > wrap.clientWidth;
    if (scrolls === wrap.hasAttribute('tabindex')) continue;
    if (!scrolls) {
      for (const a of ['tabindex', 'role', 'aria-label']) wrap.removeAttribute(a);
      continue;
    }
    const table = wrap.querySelector('table');
    const name = table?.caption?.textContent || table?.getAttribute('aria-label')
      || wrap.closest('section')?.querySelector('h2, h3')?.textContent || 'Table';
    wrap.setAttribute('tabindex', '0');
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-label', `${name.trim()} (scrolls sideways)`);
  }
}

// A post-training step (issue 36; the estimate's `posttrain`): one row per phase in order, its name, its total
// (the peak marked) and its parts as a bar drawn at the core's `share` of the peak phase (the persistent parts
// first, then the rollout engine's, marked). withParts: each phase's own parts written out under its bar.
export function renderPhases(list, posttrain, withParts = true) {
  const persistent = new Set(posttrain.persistent.parts.map((p) => p.key));
  list.replaceChildren();
  for (const phase of posttrain.phases) {
    const row = el('li', { class: `phase${phase.peak ? ' peak' : ''}`, 'data-phase': phase.key });
    const head = el('div', { class: 'phase-head' });
    head.append(el('span', { class: 'phase-label' }, phase.label),
      el('span', { class: 'phase-total' }, phase.peak ? `${phase.text} · peak` : phase.text));
    const parts = phase.parts.filter((p) => p.bytes > 0);
    const bar = el('div', { class: 'bar phase-bar', role: 'img', 'aria-label': `${phase.label}, ${phase.text}: ${parts.map((p) => `${p.label} ${p.text}`).join(', ')}` });
    for (const p of parts) {
      const seg = el('div', { class: `seg ${p.term}${p.engine ? ' engine' : ''}${persistent.has(p.key) ? ' persistent' : ''}`,
        title: `${p.label}: ${p.text}`, 'data-part': p.key });
      seg.style.width = `${p.share * 100}%`;
      bar.append(seg);
    }
    row.append(head, bar);
    const own = parts.filter((p) => !persistent.has(p.key));
    if (withParts && own.length) row.append(el('p', { class: 'phase-parts' }, own.map((p) => `${p.label} ${p.text}`).join(' · ')));
    list.append(row);
  }
}
