// Charts in SVG: memory per GPU vs sequence length and vs batch, stacked by
// term, each curve from ONE core call (sweep), with horizontal lines at the
// chosen GPUs' capacities; and the training step timeline when the core
// gives one. Only drawing arithmetic happens here (positions on screen).
import { svg } from '../render.js';

const H = 260, LEFT = 56, RIGHT = 12, TOP = 12, BOTTOM = 40;
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

// The values each chart sweeps: powers of two around the job's own value.
export function axisValues(axis, current) {
  const [from, to] = axis === 'seq' ? [128, Math.max(131072, current)] : [1, Math.max(128, current)];
  const values = new Set([current]);
  for (let v = from; v <= to; v *= 2) values.add(v);
  return [...values].filter((v) => Number.isSafeInteger(v) && v >= 1).sort((a, b) => a - b);
}

const shortNumber = (v) => (v >= 1024 && v % 1024 === 0 ? `${v / 1024}k` : String(v));

// args: sweepAnswer (the core's sweep), ticks (the core's axis marks), lines
// ([{label, bytes}] capacities), current (the job's own value), axisLabel.
export function drawStacked(box, args) {
  remember(box, () => drawStacked(box, args));
  const { sweepAnswer, ticks, lines, current, axisLabel } = args;
  const W = widthOf(box);
  const points = sweepAnswer.points;
  const top = ticks[ticks.length - 1].bytes;
  const lx = (v) => Math.log2(v);
  const [x0, x1] = [lx(points[0].value), lx(points[points.length - 1].value)];
  const x = (v) => LEFT + (x1 === x0 ? 0.5 : (lx(v) - x0) / (x1 - x0)) * (W - LEFT - RIGHT);
  const y = (b) => TOP + (1 - Math.min(b, top) / top) * (H - TOP - BOTTOM);
  const first = points[0], last = points[points.length - 1];
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'stacked',
    'aria-label': `Memory per GPU vs ${axisLabel}: ${first.total_text} at ${first.value}, ${last.total_text} at ${last.value}` });
  root.append(svg('title', {}, `Memory per GPU vs ${axisLabel}`));
  for (const t of ticks) {
    root.append(svg('line', { class: 'grid', x1: LEFT, x2: W - RIGHT, y1: y(t.bytes), y2: y(t.bytes) }));
    root.append(svg('text', { class: 'tick', x: LEFT - 6, y: y(t.bytes) + 4, 'text-anchor': 'end' }, t.text));
  }
  // Stacked areas, bottom term first.
  const lower = points.map(() => 0);
  sweepAnswer.terms.forEach((term, ti) => {
    if (points.every((p) => p.bytes[ti] <= 0)) return;
    const upper = points.map((p, i) => lower[i] + p.bytes[ti]);
    const path = [...points.map((p, i) => `${x(p.value)},${y(upper[i])}`),
      ...points.map((p, i) => `${x(p.value)},${y(lower[i])}`).reverse()].join(' ');
    const area = svg('polygon', { class: `area ${term.key}`, points: path, 'data-term': term.key });
    area.append(svg('title', {}, term.label));
    root.append(area);
    upper.forEach((u, i) => { lower[i] = u; });
  });
  // The job's own value, and a hover title per point with the total.
  root.append(svg('line', { class: 'current', x1: x(current), x2: x(current), y1: TOP, y2: H - BOTTOM }));
  const step = Math.ceil(points.length / Math.max(3, Math.floor((W - LEFT) / 48)));
  let labelled = Infinity;  // x of the last tick label drawn (labels go from the right end leftwards)
  for (let i = points.length - 1; i >= 0; i--) {
    const p = points[i];
    const dot = svg('circle', { class: 'dot', cx: x(p.value), cy: y(p.total_bytes), r: 3 });
    dot.append(svg('title', {}, `${axisLabel} ${p.value}: ${p.total_text}`));
    root.append(dot);
    // Every step-th point from the last, and never within 44 px of its right neighbour (the job's own
    // value sits between the powers of two); the last ends at the plot's edge instead of past it.
    const last = i === points.length - 1;
    if ((points.length - 1 - i) % step === 0 && labelled - x(p.value) >= 44) {
      const anchor = last ? 'end' : i === 0 ? 'start' : 'middle';  // the first clears the y axis's "0 GB"
      root.append(svg('text', { class: 'tick', x: x(p.value), y: H - BOTTOM + 16, 'text-anchor': anchor },
        shortNumber(p.value)));
      labelled = x(p.value);
    }
  }
  // A narrow chart names the GPU only (its capacity is the line's height), so the label stays inside the plot.
  // Two lines closer than a label's height: the lower one's label goes under its line.
  const narrow = W < 560;
  const ys = lines.map((line) => y(line.bytes));
  lines.forEach((line, i) => {
    const crowded = ys.some((other, k) => k !== i && Math.abs(other - ys[i]) < 14 && (other < ys[i] || (other === ys[i] && k < i)));
    root.append(svg('line', { class: 'capacity', x1: LEFT, x2: W - RIGHT, y1: ys[i], y2: ys[i] }));
    root.append(svg('text', { class: 'capacity-label', x: W - RIGHT - 4, y: crowded ? ys[i] + 12 : ys[i] - 4, 'text-anchor': 'end' },
      narrow ? line.name ?? line.label : line.label));
  });
  root.append(svg('text', { class: 'axis-label', x: LEFT + (W - LEFT - RIGHT) / 2, y: H - 6, 'text-anchor': 'middle' }, axisLabel));
  box.replaceChildren(root);
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
