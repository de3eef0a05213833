// Export: the shareable link, JSON of both jobs, CSV and Markdown tables of
// the breakdown, a PNG of the breakdown, and the embed snippet.
import { modeTitle } from '../vramcalc-client.js';

export function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

const safeName = (text) => text.replace(/[^\w.-]+/g, '_').slice(0, 60);
const both = (result, other) => [result, other].filter((r) => r && r.ok);

// request: the job fields the user set, as sent to the core (`vramcalc --job` reads the same);
// jobs: every field as the core read them, presets and defaults applied.
export function exportJson({ name, configText, result, other, link, request }) {
  const data = { model: name, config: JSON.parse(configText), request, jobs: both(result, other).map((r) => r.job),
    estimate: result, estimates: both(result, other), link };
  download(`vramcalc-${safeName(name)}-${result.job.mode}.json`, new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
}

// One row per term: the job and its counterpart, bytes and text.
export function tableRows(result, other) {
  const jobs = both(result, other);
  const header = ['Term', ...jobs.flatMap((r) => [`${modeTitle(r.job.mode)} (bytes)`, modeTitle(r.job.mode)])];
  const rows = result.terms.map((t, i) => [t.label, ...jobs.flatMap((r) => [String(r.terms[i].bytes), r.terms[i].text])]);
  rows.push(['Total per GPU', ...jobs.flatMap((r) => [String(r.total_bytes), r.total_text])]);
  return [header, ...rows];
}

const csvCell = (v) => (/[",\n\r]/.test(v) || /^[=+\-@\t]/.test(v) ? `"${v.replace(/^([=+\-@\t])/, "'$1").replace(/"/g, '""')}"` : v);
export function toCsv(rows) { return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n'; }

const mdCell = (v) => v.replace(/\|/g, '\\|').replace(/\n/g, ' ');
export function toMarkdown(rows, title) {
  const [header, ...body] = rows.map((r) => r.filter((_, i) => i === 0 || i % 2 === 0));  // texts only
  const line = (r) => `| ${r.map(mdCell).join(' | ')} |`;
  return `**${mdCell(title)}**\n\n${line(header.map((h) => h.replace(' (bytes)', '')))}\n|${header.map((_, i) => (i ? ' ---: ' : ' --- ')).join('|')}|\n${body.map(line).join('\n')}\n`;
}

export function exportCsv({ name, result, other }) {
  download(`vramcalc-${safeName(name)}.csv`, new Blob([toCsv(tableRows(result, other))], { type: 'text/csv' }));
}
// The answer's own words, as the page shows them: the verdict (with the model), the machine, the recipe.
function answerLines(name, result) {
  return [`${name}: ${result.verdict.text}`, `GPUs: ${result.machine?.text ?? ''}`, `Recipe: ${result.recipe?.text ?? ''}`];
}

export function exportMarkdown({ name, result, other, link }) {
  const title = `${name}: ${modeTitle(result.job.mode)}, ${result.weight_format}, batch ${result.job.batch} × ${result.job.seq} tokens, per GPU`;
  const head = answerLines(name, result).map((line) => `${mdCell(line)}  `).join('\n');
  // The preset values in force (core assumptions), so the table can be reproduced.
  const assumed = (result.assumptions ?? []).map((a) => `- ${mdCell(String(a.text ?? a))}`).join('\n');
  const text = `${head}\n\n${toMarkdown(tableRows(result, other), title)}` + (assumed ? `\nAssumptions:\n\n${assumed}\n` : '') +
    (link ? `\n[Open in vramcalc](${link})\n` : '');
  download(`vramcalc-${safeName(name)}.md`, new Blob([text], { type: 'text/markdown' }));
}

// The breakdown as a standalone SVG (colours resolved from the page's CSS,
// since a picture has no stylesheet), drawn onto a canvas and saved as PNG.
function breakdownSvg(result, title, lines = []) {
  const css = getComputedStyle(document.documentElement);
  const color = (key) => css.getPropertyValue(`--${key}`).trim() || '#888';
  const ink = css.getPropertyValue('--ink').trim() || '#000';
  const paper = css.getPropertyValue('--panel').trim() || '#fff';
  const esc = (t) => t.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const W = 720, top = 20 * lines.length, barY = 44 + top, barH = 36;
  const terms = result.terms.filter((t) => t.bytes > 0);
  let x = 20;
  const segs = terms.map((t) => {
    const w = t.share * (W - 40);
    const s = `<rect x="${x}" y="${barY}" width="${w}" height="${barH}" fill="${color(t.key)}"/>`;
    x += w;
    return s;
  }).join('');
  const legend = result.terms.map((t, i) => `<rect x="20" y="${98 + top + i * 24}" width="14" height="14" fill="${color(t.key)}"/>` +
    `<text x="42" y="${110 + top + i * 24}">${esc(t.label)}</text><text x="${W - 20}" y="${110 + top + i * 24}" text-anchor="end">${esc(t.text)}</text>`).join('');
  // The verdict, the GPUs, the recipe and the link under the title, each line as the caller cut it.
  const said = lines.map((line, i) => `<text x="20" y="${50 + i * 20}" font-size="12">${esc(line)}</text>`).join('');
  const H = 110 + top + result.terms.length * 24 + 30;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="system-ui, sans-serif" font-size="14" fill="${ink}">` +
    `<rect width="${W}" height="${H}" fill="${paper}"/><text x="20" y="28" font-weight="600">${esc(title)}</text>${said}${segs}${legend}` +
    `<text x="20" y="${H - 14}" font-weight="600">Total per GPU</text><text x="${W - 20}" y="${H - 14}" text-anchor="end" font-weight="600">${esc(result.total_text)}</text></svg>`;
}

export async function exportPng({ name, result, link }) {
  const title = `${name} · ${modeTitle(result.job.mode)} · ${result.weight_format}`;
  // Lines of at most 110 characters: the answer's lines cut with an ellipsis, the link wrapped whole.
  const clip = (t) => (t.length > 110 ? `${t.slice(0, 109)}…` : t);
  const wrapped = link ? link.match(/.{1,110}/g) : [];
  const lines = [...answerLines(name, result).map((line, i) => clip(i ? line : result.verdict.text)), ...wrapped];
  const url = URL.createObjectURL(new Blob([breakdownSvg(result, title, lines)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width * 2;
    canvas.height = img.height * 2;
    const ctx = canvas.getContext('2d');
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0);
    const png = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    download(`vramcalc-${safeName(name)}.png`, png);
  } finally {
    URL.revokeObjectURL(url);
  }
}
