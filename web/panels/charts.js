// Charts in SVG: memory per GPU vs sequence length and vs batch around the job,
// stacked by term, each from ONE core call (chart): the core picks the range
// (capped at the model's context), the y-axis (linear, capped or log) and its
// marks, and the capacity line of the user's GPU; and the training step
// timeline when the core gives one. Only screen positions are computed here.
import { svg } from '../render.js';

const H = 290, LEFT = 60, RIGHT = 12, TOP = 30, BOTTOM = 40;
// Drawn at the box's own width, so text keeps its size on a phone. Widths
// come from a ResizeObserver (reading clientWidth while drawing would force
// a layout of the whole page on every input), and a change redraws.
const widths = new Map();
const redraws = new Map();
const clampWidth = (w) => Math.max(300, Math.min(900, Math.round(w || 640)));
const widthOf = (box) => {
  if (!widths.has(box)) widths.set(box, clampWidth(box.clientWidth));
  return widths.get(box);
};
const resized = new ResizeObserver((entries) => {
  for (const { target, contentRect } of entries) {
    if (!contentRect.width) continue;  // hidden
    const w = clampWidth(contentRect.width);
    if (w === widths.get(target)) continue;
    widths.set(target, w);
    redraws.get(target)?.();
  }
});
function remember(box, redraw) {
  if (!redraws.has(box)) resized.observe(box);
  redraws.set(box, redraw);
}

// Approximate width of a label in the 11 px sans-serif the charts use (for placement only).
const textWidth = (text) => String(text).length * 6.2 + 6;
const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
const boxAt = (x, y, text, anchor) => {
  const w = textWidth(text);
  const x1 = anchor === 'end' ? x - w : anchor === 'middle' ? x - w / 2 : x;
  return { x1, x2: x1 + w, y1: y - 12, y2: y + 3 };
};

// A legend under the chart: one swatch per term drawn, the total line, the capacity line, the job's point.
function legend(items) {
  const list = document.createElement('ul');
  list.className = 'chart-legend';
  for (const { key, label } of items) {
    const li = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = `swatch ${key}`;
    swatch.setAttribute('aria-hidden', 'true');
    li.append(swatch, label);
    list.append(li);
  }
  return list;
}

// The core's chart (chart(job, axis), core/api/chart.hpp): points, both axes' ranges and marks,
// the job's point with its label, the capacity line. Only screen positions are computed here.
export function drawChart(box, c) {
  if (!c || c.ok !== true) {
    const p = document.createElement('p');
    p.className = 'chart-error';
    p.textContent = c?.error?.text ?? c?.error?.message ?? 'no chart for this job';
    box.replaceChildren(p);
    return;
  }
  remember(box, () => drawChart(box, c));
  const W = widthOf(box);
  const points = c.points;
  const log = c.y.scale === 'log';
  const [lo, hi] = [c.y.min_bytes, c.y.max_bytes];
  const plotH = H - TOP - BOTTOM, plotW = W - LEFT - RIGHT;
  const x0 = Math.log2(points[0].value), x1 = Math.log2(points[points.length - 1].value);
  const x = (v) => LEFT + (x1 === x0 ? 0.5 : (Math.log2(v) - x0) / (x1 - x0)) * plotW;
  const ly = (b) => Math.log10(Math.max(b, lo || 1));
  const y = log
    ? (b) => TOP + (1 - (ly(Math.min(b, hi)) - ly(lo)) / (ly(hi) - ly(lo))) * plotH
    : (b) => TOP + (1 - (Math.min(Math.max(b, lo), hi) - lo) / (hi - lo)) * plotH;
  const current = points.find((p) => p.current) ?? points[0];
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'stacked',
    'aria-label': `${c.y_label} vs ${c.x_label}: ${points[0].plotted_text} at ${points[0].value_text}, ` +
      `${c.current.label}, ${points[points.length - 1].plotted_text} at ${points[points.length - 1].value_text}` +
      `${c.capacity ? `; ${c.capacity.label}` : ''}` });
  root.append(svg('title', {}, `${c.y_label} vs ${c.x_label}`));
  for (const t of c.y.ticks) {
    root.append(svg('line', { class: 'grid', x1: LEFT, x2: W - RIGHT, y1: y(t.bytes), y2: y(t.bytes) }));
    root.append(svg('text', { class: 'tick', x: LEFT - 6, y: y(t.bytes) + 4, 'text-anchor': 'end' }, t.text));
  }
  // The core's x marks; at the plot's edges a label ends inside it (the first clears the y axis's
  // marks), and one that would crowd the label before it is left out on a narrow chart.
  let lastRight = -Infinity;
  c.x.ticks.forEach((t, i) => {
    const at = x(t.value), w = textWidth(t.text);
    const anchor = at - w / 2 < LEFT - 4 ? 'start' : at + w / 2 > W - RIGHT ? 'end' : 'middle';
    const left = anchor === 'start' ? at : anchor === 'end' ? at - w : at - w / 2;
    if (left < lastRight + 4 && i !== c.x.ticks.length - 1) return;
    root.append(svg('line', { class: 'grid x', x1: at, x2: at, y1: H - BOTTOM, y2: H - BOTTOM + 4 }));
    root.append(svg('text', { class: 'tick', x: at, y: H - BOTTOM + 16, 'text-anchor': anchor }, t.text));
    lastRight = left + w;
  });
  const items = [];
  // Stacked areas, bottom term first, on a linear axis of totals (a log axis shows the total alone:
  // stacked bands on a log scale would misstate each term's share).
  if (!log && c.plotted === 'total') {
    const lower = points.map(() => 0);
    c.terms.forEach((term, ti) => {
      if (points.every((p) => p.bytes[ti] <= 0)) return;
      const upper = points.map((p, i) => lower[i] + p.bytes[ti]);
      const path = [...points.map((p, i) => `${x(p.value)},${y(upper[i])}`),
        ...points.map((p, i) => `${x(p.value)},${y(lower[i])}`).reverse()].join(' ');
      const area = svg('polygon', { class: `area ${term.key}`, points: path, 'data-term': term.key });
      area.append(svg('title', {}, term.label));
      root.append(area);
      items.push({ key: term.key, label: term.label });
      upper.forEach((u, i) => { lower[i] = u; });
    });
  }
  root.append(svg('polyline', { class: 'total', points: points.map((p) => `${x(p.value)},${y(p.plotted_bytes)}`).join(' ') }));
  items.push({ key: 'total', label: c.plotted === 'total' ? 'Total per GPU' : c.y_label });
  for (const p of points) {
    const dot = svg('circle', { class: `dot${p.clipped ? ' clipped' : ''}`, cx: x(p.value), cy: y(p.plotted_bytes), r: 2.5 });
    dot.append(svg('title', {}, `${p.value_text}: ${p.plotted_text}`));
    root.append(dot);
  }
  // Labels drawn without hover: the job's point, both ends, the capacity line; each placed where it
  // does not cover another (the capacity label goes below its line, or to the other side, when taken).
  const taken = [];
  const place = (cls, candidates, text) => {
    const fits = ([px, py, anchor]) => {
      const b = boxAt(px, py, text, anchor);
      return py > TOP + 8 && py < H - BOTTOM - 2 && b.x1 >= 0 && b.x2 <= W && !taken.some((t) => overlaps(t, b));
    };
    const pick = candidates.find(fits) ?? candidates[0];
    taken.push(boxAt(pick[0], pick[1], text, pick[2]));
    root.append(svg('text', { class: cls, x: pick[0], y: pick[1], 'text-anchor': pick[2] }, text));
  };
  const cx = x(current.value), cy = y(current.plotted_bytes);
  root.append(svg('line', { class: 'current', x1: cx, x2: cx, y1: TOP, y2: H - BOTTOM }));
  const mark = svg('circle', { class: 'current-point', cx, cy, r: 5 });
  mark.append(svg('title', {}, c.current.label));
  root.append(mark);
  const side = cx > LEFT + plotW / 2 ? 'end' : 'start';
  const dx = side === 'end' ? -8 : 8;
  const other = side === 'end' ? 'start' : 'end';
  place('current-label', [[cx + dx, cy - 10, side], [cx + dx, cy + 18, side], [cx - dx, cy - 10, other], [cx - dx, cy + 18, other]],
    c.current.label);
  if (c.capacity) {
    const capY = y(c.capacity.bytes);
    root.append(svg('line', { class: 'capacity', x1: LEFT, x2: W - RIGHT, y1: capY, y2: capY }));
    place('capacity-label', [[W - RIGHT - 4, capY - 5, 'end'], [LEFT + 4, capY - 5, 'start'], [W - RIGHT - 4, capY + 14, 'end'],
      [LEFT + 4, capY + 14, 'start']], c.capacity.label);
    items.push({ key: 'capacity', label: c.capacity.label });
  }
  const first = points[0], last = points[points.length - 1];
  for (const [p, anchor, shift] of [[first, 'start', 4], [last, 'end', -4]]) {
    if (p === current) continue;
    const px = x(p.value) + shift, py = y(p.plotted_bytes);
    place('end-label', [[px, py - 8, anchor], [px, py + 16, anchor]], p.plotted_text);
  }
  items.push({ key: 'current', label: `This job: ${c.current.label}` });
  root.append(svg('text', { class: 'axis-label', x: LEFT + plotW / 2, y: H - 6, 'text-anchor': 'middle' }, c.x_label));
  root.append(svg('text', { class: 'axis-label', x: 4, y: 12 }, `${c.y_label}${log ? ' (log scale)' : ''}` +
    `${c.y.capped ? ' (capped: higher points on the top edge)' : ''}`));
  box.replaceChildren(root, legend(items));
}

// The estimate's training step timeline, when the core gives one: one bar
// per phase, stacked by term, the peak phase marked. Read leniently
// (phases[] with key/label/bytes/text/terms{key: bytes}, peak flag or
// timeline.peak_phase) so the chart follows the core's JSON.
export function drawTimeline(box, timeline, peakPhase) {
  const phases = Array.isArray(timeline) ? timeline : timeline?.phases;
  if (!Array.isArray(phases) || !phases.length) return false;
  remember(box, () => drawTimeline(box, timeline, peakPhase));
  const W = widthOf(box);
  const peak = peakPhase ?? timeline?.peak_phase;
  const rows = phases.map((p) => {
    const key = String(p.key ?? p.phase ?? p.name ?? p.label ?? '');
    return { key, name: String(p.label ?? key), bytes: Number(p.bytes ?? p.total_bytes ?? 0), text: String(p.text ?? p.total_text ?? ''),
      terms: p.terms && typeof p.terms === 'object' ? Object.entries(p.terms) : [], peak: p.peak === true || (peak !== undefined && key === peak) };
  });
  const max = Math.max(...rows.map((r) => r.bytes), 1);
  const labelW = Math.min(200, Math.round(W * 0.38)), textW = 110, rowH = 40;
  const barW = W - labelW - textW - 8;
  const height = rows.length * rowH + 6;
  const root = svg('svg', { viewBox: `0 0 ${W} ${height}`, role: 'img', class: 'timeline',
    'aria-label': `Training step: ${rows.map((r) => `${r.name} ${r.text}${r.peak ? ' (peak)' : ''}`).join(', ')}` });
  rows.forEach((r, i) => {
    const yy = 4 + i * rowH;
    root.append(svg('text', { class: `tick phase-label${r.peak ? ' peak' : ''}`, x: 0, y: yy + 14 }, r.name));
    let x = labelW;
    const parts = r.terms.length ? r.terms : [['other', r.bytes]];
    for (const [term, bytes] of parts) {
      const w = (Number(bytes) / max) * barW;
      if (w <= 0) continue;
      const rect = svg('rect', { class: `area ${term}`, x, y: yy + 20, width: Math.max(0.5, w), height: 14 });
      rect.append(svg('title', {}, term));
      root.append(rect);
      x += w;
    }
    root.append(svg('text', { class: `tick phase-label${r.peak ? ' peak' : ''}`, x: W - textW + 4, y: yy + 32 }, `${r.text}${r.peak ? ' peak' : ''}`));
  });
  box.replaceChildren(root);
  return true;
}
