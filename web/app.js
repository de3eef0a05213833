// The calculator page: one state object (state.js), one module per panel
// (panels/), and this file turning state into core calls and renders.
import { loadCore, loadModels, coreBroken, estimate, sweep, matrix, ticks, counterpartJob, savedHubConfig, jobValue,
  modeTitle } from './vramcalc-client.js';
import { state, stateQuery, unbase64url } from './state.js';
import { initJob, setField, readJob, clearOverride, showModeFields, showFieldError, clearFieldErrors } from './panels/job.js';
import { initModel, showSource, configText, modelName, sourceControl, fetchHub } from './panels/model.js';
import { renderResults, showState } from './panels/results.js';
import { axisValues, drawStacked, drawTimeline } from './panels/charts.js';
import { renderMatrix, renderCompare } from './panels/compare.js';
import { exportJson, exportCsv, exportMarkdown, exportPng } from './panels/export.js';
import { embedSnippet } from './embed.js';

const $ = (id) => document.getElementById(id);
const form = $('controls');

const modelsLoading = loadModels();  // models.json downloads while the core compiles
const core = await loadCore();
const options = JSON.parse(core.options());
const defaults = options.defaults;
const gpuCatalog = JSON.parse(core.gpus());
const models = await modelsLoading;
const fieldIds = initJob(options);
const embedded = new URLSearchParams(location.search).has('embed');
if (embedded) document.body.classList.add('embedded');

for (const g of [{ id: '', name: 'Automatic (smallest that fits)' }, { id: 'none', name: 'None' }, ...gpuCatalog]) {
  $('line-gpu').append(new Option(g.capacity_text ? `${g.name} · ${g.capacity_text}` : g.name, g.id));
}

// ---------------------------------------------------------------- URL state

function applyQuery(q) {
  for (const key of fieldIds) setField(key, q.has(key) ? q.get(key) : defaults[key]);
  const s = state.source;
  s.kind = 'catalog';
  s.modelId = q.get('model') ?? 'llama-3-8b';
  s.pasted = '';
  s.hubId = '';
  s.hubText = '';
  if (q.has('cfg')) {
    s.kind = 'paste';
    try {
      s.pasted = unbase64url(q.get('cfg'));
    } catch {
      s.pasted = '';
      s.badLink = true;
    }
  } else if (q.has('hf')) {
    s.kind = 'hub';
    s.hubId = q.get('hf');
  }
  state.customGpuGib = q.get('custom_gpu_gib') ?? '';
  $('custom_gpu_gib').value = state.customGpuGib;
  state.lineGpu = q.get('line') ?? '';
  $('line-gpu').value = state.lineGpu;
  state.compare = q.getAll('cmp').slice(0, 4);
  showSource();
}

// A new history entry at once; replacing the current one (while typing)
// waits for a pause, since each history call costs milliseconds in Chromium.
let urlTimer = 0;
function writeUrl(push) {
  clearTimeout(urlTimer);
  const write = () => {
    const url = `?${stateQuery(readJob(), defaults)}${embedded ? '&embed=1' : ''}`;
    if (url === location.search) return;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  };
  if (push) write();
  else urlTimer = setTimeout(write, 150);
}

// ---------------------------------------------------------------- compute

// The control that an error's field belongs to.
function controlFor(field) {
  if (field.startsWith('job.')) return $(field.slice(4).split(/[.[]/)[0]);
  if (field === 'model' || field.startsWith('config') || field.startsWith('Hugging')) return sourceControl();
  return null;
}
// The message under a field reads without the field path in front.
const plainMessage = (message, field) => (message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message);

function fail({ field, message }, keepResult) {
  const control = controlFor(field);
  showFieldError(control, plainMessage(message, field));
  // Dimmed last result only for the same model: another model's figures never stay.
  const stale = keepResult && state.result !== null && state.resultConfig === configText();
  showState(stale ? 'stale' : 'hidden', { error: stale ? `${message} (the figures below are the last valid ones)` : message });
  if (!stale) state.result = null;
}

function chartLines(result) {
  const lines = [];
  const custom = result.fits.find((f) => f.id === 'custom');
  if (custom) lines.push({ label: `Your GPU · ${custom.capacity_text}`, bytes: custom.capacity_bytes });
  else if (state.customGpuGib !== '' && Number(state.customGpuGib) > 0) {
    // Until the core knows custom_gpu_gib: the typed size, in bytes, for the line only.
    lines.push({ label: `Your GPU · ${state.customGpuGib} GiB`, bytes: Number(state.customGpuGib) * 2 ** 30 });
  }
  if (state.lineGpu === 'none') return lines;
  const pick = state.lineGpu ? result.fits.find((f) => f.id === state.lineGpu)
    : result.fits.find((f) => f.fits_as_configured) ?? result.fits[result.fits.length - 1];
  if (pick) lines.push({ label: `${pick.name} · ${pick.capacity_text}`, bytes: pick.capacity_bytes });
  return lines;
}

function renderCharts(text, job, result) {
  const lines = chartLines(result);
  for (const [axis, box, label] of [['seq', $('chart-seq'), 'sequence length'], ['batch', $('chart-batch'), 'batch']]) {
    const answer = sweep(text, job, axis, axisValues(axis, result.job[axis]));
    if (!answer.ok) { box.replaceChildren(); continue; }
    const max = Math.max(...answer.points.map((p) => p.total_bytes), ...lines.map((l) => l.bytes));
    const marks = ticks(max);
    if (!marks.ok) { box.replaceChildren(); continue; }
    drawStacked(box, { sweepAnswer: answer, ticks: marks.ticks, lines, current: result.job[axis], axisLabel: label });
  }
  $('timeline-box').hidden = !drawTimeline($('chart-timeline'), result.timeline, result.peak_phase);
}

function renderComparisons(text, job) {
  const m = matrix(text, job);
  if (m.ok) renderMatrix($('matrix'), m, job);
  const setups = state.compare.map((query) => setupFor(new URLSearchParams(query)));
  renderCompare($('compare'), setups, (i) => { state.compare.splice(i, 1); update({ push: true }); });
}

// A saved setup (its query string) as a title and a core answer.
function setupFor(q) {
  const job = {};
  for (const key of fieldIds) job[key] = jobValue(q.get(key) ?? defaults[key], defaults[key]);
  let text = null;
  let title = q.get('model') ?? q.get('hf') ?? 'pasted config';
  if (q.has('model')) {
    const m = models.find((x) => x.id === q.get('model'));
    text = m ? JSON.stringify(m.config) : null;
    title = m ? m.name : title;
  } else if (q.has('hf')) text = q.get('hf') === state.source.hubId ? state.source.hubText : savedHubConfig(q.get('hf'));
  else if (q.has('cfg')) { try { text = unbase64url(q.get('cfg')); } catch { text = null; } }
  const result = text ? estimate(text, job) : { ok: false, error: { message: 'config not available offline' } };
  const subtitle = `${modeTitle(job.mode)} · ${result.ok ? result.weight_format : job.dtype} · ${job.batch} × ${job.seq} · ${job.gpus} GPU${job.gpus > 1 ? 's' : ''}`;
  return { title, subtitle, result };
}

function compute() {
  showModeFields($('mode').value);
  const s = state.source;
  const text = configText();
  if (s.badLink) {
    s.badLink = false;
    return fail({ field: 'config', message: 'config: the link\'s cfg= value is not a valid encoded config.json' }, false);
  }
  if (text === null) return fail({ field: 'model', message: `model: unknown model '${s.modelId}'` }, false);
  if (text === '') {
    clearFieldErrors();
    state.result = null;
    return showState('empty', { empty: s.kind === 'hub' ? 'Type a Hugging Face model id or address and press Fetch config.'
      : 'Paste or drop a config.json to see what it needs.' });
  }
  const job = readJob({ forCore: true });
  const result = estimate(text, job);
  if (!result.ok) return fail(result.error, result.error.field.startsWith('job'));
  const other = estimate(text, counterpartJob(job, options));
  clearFieldErrors();
  showState('result');
  state.result = result;
  state.resultConfig = text;
  state.other = other;
  renderResults(result, other, { name: modelName(), options });
  // The totals and breakdown paint first; charts and comparisons follow right
  // after that paint (only the latest input's, when inputs come fast).
  scheduleSecondary(() => {
    renderCharts(text, job, result);
    renderComparisons(text, job);
  });
}

let secondary = null;
function scheduleSecondary(draw) {
  const first = secondary === null;
  secondary = draw;
  document.body.dataset.busy = 'true';
  if (!first) return;
  requestAnimationFrame(() => setTimeout(() => {
    const run = secondary;
    secondary = null;
    try {
      if (state.result) run();
    } finally {
      delete document.body.dataset.busy;
    }
  }));
}

// One place every change goes through: URL, then numbers (reloading the core
// first if a previous input made it trap).
let pending = null;
function update({ push = false, error = null } = {}) {
  writeUrl(push);
  if (error) return fail(error, false);
  if (coreBroken()) {
    pending ??= loadCore().then(() => { pending = null; compute(); });
    return pending;
  }
  try {
    compute();
  } catch (e) {
    fail({ field: 'internal', message: `internal: ${e.message}` }, false);
  }
  return null;
}

// ---------------------------------------------------------------- events

initModel(models, update);
form.addEventListener('submit', (e) => e.preventDefault());
// History: a choice (select, checkbox) adds an entry; typing adds one entry
// at its first keystroke and then keeps replacing it, so Back undoes a whole edit.
let typing = null;
const typed = (e) => e.target.tagName === 'TEXTAREA' || (e.target.tagName === 'INPUT' && !['checkbox', 'radio'].includes(e.target.type));
for (const type of ['input', 'change']) {
  form.addEventListener(type, (e) => {
    if (e.target.closest('.source')) return;
    if (!typed(e) && type === 'input') return;  // its change event follows
    if (e.target.id === 'custom_gpu_gib') state.customGpuGib = e.target.value.trim();
    else if (e.target.name) clearOverride(e.target.name);
    let push = true;
    if (typed(e)) {
      push = type === 'input' && typing !== e.target;
      typing = type === 'input' ? e.target : null;
    }
    update({ push });
  });
}
$('line-gpu').addEventListener('change', () => { state.lineGpu = $('line-gpu').value; update({ push: true }); });
$('compare-add').addEventListener('click', () => {
  const q = stateQuery(readJob(), defaults);
  q.delete('cmp');
  q.delete('line');
  if (state.compare.length >= 4) state.compare.shift();
  state.compare.push(q.toString());
  update({ push: true });
});
window.addEventListener('popstate', () => {
  applyQuery(new URLSearchParams(location.search));
  if (state.source.kind === 'hub' && state.source.hubId) fetchHub({ push: false });
  else update();
});

const exportArgs = () => ({ name: modelName(), configText: configText(), result: state.result, other: state.other, link: location.href });
$('share').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(location.href);
    $('share').textContent = 'Link copied';
  } catch {
    $('share').textContent = 'Copy the address bar';
  }
  setTimeout(() => { $('share').textContent = 'Copy link'; }, 2000);
});
$('export').addEventListener('click', () => state.result && exportJson(exportArgs()));
$('export-csv').addEventListener('click', () => state.result && exportCsv(exportArgs()));
$('export-md').addEventListener('click', () => state.result && exportMarkdown(exportArgs()));
$('export-png').addEventListener('click', () => state.result && exportPng(exportArgs()));

$('embed').addEventListener('click', () => {
  const open = $('embed-box').hidden;
  $('embed-box').hidden = !open;
  $('embed').setAttribute('aria-expanded', String(open));
  const job = readJob();
  const changed = Object.fromEntries(Object.entries(job).filter(([k, v]) => String(v) !== String(defaults[k])));
  const query = stateQuery(job, defaults);
  query.delete('cmp');
  $('embed-code').value = embedSnippet({ here: new URL('./', location.href).href,
    modelId: state.source.kind === 'catalog' ? state.source.modelId : null, changed, query });
});

// The iframe embed tells its host how tall it is, for hosts that resize it.
if (embedded && window.parent !== window) {
  new ResizeObserver(() => window.parent.postMessage({ vramcalcHeight: document.documentElement.scrollHeight }, '*'))
    .observe(document.body);
}

// ---------------------------------------------------------------- start

try {
  applyQuery(new URLSearchParams(location.search));
  if (state.source.kind === 'hub' && state.source.hubId) await fetchHub({ push: false });
  else await update();
} finally {
  document.body.dataset.ready = 'true';
  performance.mark('vramcalc:first-result');  // read by bench/bench_page.mjs
}

// The cluster panel (another module, may not exist yet): mounted when present.
import('./panels/cluster.js').then((mod) => mod.mount?.($('cluster'), { state, core, options, update }))
  .catch(() => { $('cluster').hidden = true; });

if ('serviceWorker' in navigator && !embedded) navigator.serviceWorker.register('sw.js').catch(() => {});
