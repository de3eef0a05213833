// DOM rendering of a core result, shared by the page and the widget.
function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
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
  tbody.replaceChildren();
  for (const t of result.terms) {
    const row = el('tr', { 'data-term': t.key, title: t.why });
    const name = el('td');
    name.append(el('span', { class: `swatch ${t.key}` }), document.createTextNode(t.label));
    row.append(name, el('td', { class: 'num' }, t.text));
    if (withWhy) row.append(el('td', { class: 'how' }, t.why));
    tbody.appendChild(row);
  }
}

export function renderFitRows(tbody, result) {
  tbody.replaceChildren();
  for (const f of result.fits) {
    const row = el('tr', { 'data-gpu': f.id, class: f.fits_as_configured ? 'ok' : 'no' });
    row.append(
      el('td', {}, f.name),
      el('td', { class: 'num' }, f.capacity_text),
      el('td', {}, f.fits_as_configured ? '✓ fits' : '✗ too small'),
      el('td', { class: 'num' }, f.gpus_needed > 0 ? String(f.gpus_needed) : 'never (activations too large)'));
    tbody.appendChild(row);
  }
}
