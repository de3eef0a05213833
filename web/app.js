// The calculator page: one state object (state.js), one module per panel
// (panels/), and this file turning state into core calls and renders.
import { loadCore, loadModels, coreBroken, estimate, sweep, matrix, solve, ticks, cluster as clusterPlan, counterpartJob, hubConfigWithoutHub, jobValue,
  modeTitle } from './vramcalc-client.js';
import { state, stateQuery, unbase64url } from './state.js';
import { initJob, setField, readJob, touch, showEffective, showModeFields, showFieldError, clearFieldErrors, labelledMessage } from './panels/job.js';
import { initModel, showSource, configText, modelName, sourceControl, fetchHub, resetHubStatus } from './panels/model.js';
import { initCheckpoint, checkpointFor, checkpointTag, isCheckpointFile, openCheckpointFile } from './panels/checkpoint.js';
import { renderResults, showState } from './panels/results.js';
import { axisValues, drawStacked, drawTimeline } from './panels/charts.js';
import { renderMatrix, renderCompare } from './panels/compare.js';
import { initFits, fitsGpu, fitsJob, renderFits } from './panels/fits.js';
import { initActions } from './panels/actions.js';
import { markScrollable } from './render.js';

const $ = (id) => document.getElementById(id);
const form = $('controls');

const modelsLoading = loadModels();  // models.json downloads while the core compiles
const core = await loadCore();
const options = JSON.parse(core.options());
const defaults = options.defaults;
const gpuCatalog = JSON.parse(core.gpus());
let models;
try {
  models = await modelsLoading;
} catch (e) {
  // A deployment without a readable catalog says so where the results go, instead of a blank page.
  $('error').textContent = `The model catalog could not be read (${e.message}); reload the page, or report it to the site.`;
  $('error').hidden = false;
  document.body.dataset.ready = 'true';
  throw e;
}
const fieldIds = initJob(options, gpuCatalog);
const embedded = new URLSearchParams(location.search).has('embed');
if (embedded) {
  document.body.classList.add('embedded');
  // In a host's iframe the answer comes first (in reading and tab order too), then the form.
  document.querySelector('main.layout').prepend(document.getElementById('results'));
}

for (const g of [{ id: '', name: 'Automatic (smallest that fits)' }, { id: 'none', name: 'None' }, ...gpuCatalog]) {
  $('line-gpu').append(new Option(g.capacity_text ? `${g.name} · ${g.capacity_text}` : g.name, g.id));
}

// The cluster panel, once its module has loaded (below), and the latest result's
// config and job for when it arrives.
let clusterPanel = null;
let clusterArgs = null;

// ---------------------------------------------------------------- URL state

function applyQuery(q) {
  state.touched = new Set(fieldIds.filter((key) => q.has(key)));
  for (const key of fieldIds) setField(key, q.has(key) ? q.get(key) : defaults[key]);
  const s = state.source;
  s.kind = 'catalog';
  s.modelId = q.get('model') ?? 'llama-3-8b';
  s.pasted = '';
  s.hubId = '';
  s.hubText = '';
  resetHubStatus();
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
  for (const key of Object.keys(state.cluster)) delete state.cluster[key];  // the panel holds this object
  for (const [key, value] of q) if (key.startsWith('cl_')) state.cluster[key.slice(3)] = value;
  clusterPanel?.sync();
  $('line-gpu').value = state.lineGpu;
  state.fitsGpu = q.get('fit') ?? '';
  state.compare = q.getAll('cmp').slice(0, 4);
  showSource();
}

// A new history entry at once; replacing the current one (while typing)
// waits for a pause, since each history call costs milliseconds in Chromium.
let urlTimer = 0;
function writeUrl(push) {
  clearTimeout(urlTimer);
  const write = () => {
    const url = `?${stateQuery(readJob())}${embedded ? '&embed=1' : ''}`;
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
  if (field.startsWith('job.')) {
    const key = field.slice(4).split(/[.[]/)[0];
    return $(key === 'device_gib' ? 'custom_gpu_gib' : key);  // the custom GPU box sends device_gib
  }
  if (field === 'model' || field.startsWith('config') || field.startsWith('Hugging')) return sourceControl();
  if (field.startsWith('checkpoint')) return $('checkpoint-file');
  return null;
}
// The message under a field reads without the field path in front; a
// checkpoint's keeps it, since it names the part of the file at fault.
const plainMessage = (message, field) =>
  (message.startsWith(`${field}: `) && !field.startsWith('checkpoint') ? message.slice(field.length + 2) : message);

function fail({ field, message }, keepResult) {
  cancelSecondary();
  const control = controlFor(field);
  showFieldError(control, plainMessage(message, field));
  const banner = labelledMessage(field, message);  // "Sequence length: …", not "job.seq: …"
  // Dimmed last result only for the same model: another model's figures never stay.
  const stale = keepResult && state.result !== null && state.resultConfig === configText();
  showState(stale ? 'stale' : 'hidden', { error: stale ? `${banner} (the figures below are the last valid ones)` : banner });
  if (!stale) state.result = null;
  else if (lastGood?.result === state.result) scheduleSecondary(secondaryTasks(lastGood));
}

function chartLines(result) {
  const lines = [];
  // The custom GPU is the core's fit row "custom" (job.device_gib).
  const custom = result.fits.find((f) => f.id === 'custom');
  if (custom) lines.push({ name: 'Your GPU', label: `Your GPU · ${custom.capacity_text}`, bytes: custom.capacity_bytes });
  if (state.lineGpu === 'none') return lines;
  const catalog = result.fits.filter((f) => f.id !== 'custom');
  const pick = state.lineGpu ? catalog.find((f) => f.id === state.lineGpu)
    : catalog.find((f) => f.fits_as_configured) ?? catalog[catalog.length - 1];
  if (pick) lines.push({ name: pick.name, label: `${pick.name} · ${pick.capacity_text}`, bytes: pick.capacity_bytes });
  return lines;
}

// Core answers for the deferred panels, kept while their inputs are the same
// (a chart line or another panel's change does not ask the core again).
const memo = new Map();
function remembered(kind, config, args, ask) {
  const text = `${checkpointTag()}:${config}`;  // the same config with another checkpoint answers otherwise
  const key = JSON.stringify(args);
  const last = memo.get(kind);
  if (last && last.text === text && last.key === key) return last.answer;
  const answer = ask();
  memo.set(kind, { text, key, answer });
  return answer;
}

function renderChart(text, job, result, axis) {
  const [box, label] = axis === 'seq' ? [$('chart-seq'), 'sequence length'] : [$('chart-batch'), 'batch'];
  const values = axisValues(axis, result.job[axis]);
  const answer = remembered(`sweep-${axis}`, text, [job, values], () => sweep(text, job, axis, values));
  if (!answer.ok) { box.replaceChildren(); return; }
  const lines = chartLines(result);
  const marks = ticks(Math.max(...answer.points.map((p) => p.total_bytes), ...lines.map((l) => l.bytes)));
  if (!marks.ok) { box.replaceChildren(); return; }
  drawStacked(box, { sweepAnswer: answer, ticks: marks.ticks, lines, current: result.job[axis], axisLabel: label });
}

function renderFitsPanel(text, job, result) {
  const gpu = fitsGpu(result, state.fitsGpu);
  if (!gpu) return;
  const ask = fitsJob(job, gpu);
  const answers = remembered('fits', text, ask, () => options.questions.map((question) => ({ question, answer: solve(text, ask, question) })));
  renderFits(result, gpu, answers);
}

function renderComparisons(text, job, result) {
  const m = remembered('matrix', text, job, () => matrix(text, job));
  if (m.ok) renderMatrix($('matrix'), m, result.job);
  const setups = state.compare.map((query) => setupFor(new URLSearchParams(query)));
  renderCompare($('compare'), setups, (i) => {
    state.compare.splice(i, 1);
    removedSetup = i;
    update({ push: true });
  });
  // Focus stays in the comparison after a Remove: the setup that took its place, else the one before, else Add.
  if (removedSetup !== null) {
    const buttons = $('compare').querySelectorAll('button.remove');
    (buttons[Math.min(removedSetup, buttons.length - 1)] ?? $('compare-add')).focus();
    removedSetup = null;
  }
}
let removedSetup = null;  // the index of the setup just removed, until the comparison is drawn again

// A saved setup (its query string) as a title and a core answer.
function setupFor(q) {
  const job = {};
  for (const key of fieldIds) if (q.has(key)) job[key] = jobValue(q.get(key), defaults[key]);
  if (q.has('custom_gpu_gib')) job.device_gib = jobValue(q.get('custom_gpu_gib'), defaults.device_gib);
  if ((job.mode ?? defaults.mode) !== 'inference') delete job.engine;
  let text = null;
  let title = q.get('model') ?? q.get('hf') ?? 'pasted config';
  if (q.has('model')) {
    const m = models.find((x) => x.id === q.get('model'));
    text = m ? JSON.stringify(m.config) : null;
    title = m ? m.name : title;
  } else if (q.has('hf')) {
    // The config fetched for the page, else a kept copy, else the catalog's for a catalog model's Hub id.
    const id = q.get('hf');
    text = id === state.source.hubId ? state.source.hubText : hubConfigWithoutHub(id, models)?.text ?? null;
  }
  else if (q.has('cfg')) { try { text = unbase64url(q.get('cfg')); } catch { text = null; } }
  const result = text ? estimate(text, job) : { ok: false, error: { message: 'config not available: fetch it once from the Hub' } };
  const j = result.ok ? result.job : { ...defaults, ...job };
  const subtitle = `${modeTitle(j.mode)} · ${result.ok ? result.weight_format : j.dtype} · ${j.batch} × ${j.seq} · ${j.gpus} GPU${j.gpus > 1 ? 's' : ''}`;
  return { title, subtitle, result };
}

function compute() {
  showModeFields($('mode').value);
  const s = state.source;
  const text = configText();
  // A checkpoint belongs to its config; a bad one keeps the last good figures, dimmed.
  const checkpointError = checkpointFor(text);
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
  if (checkpointError) return fail(checkpointError, true);
  const job = readJob({ forCore: true });
  const result = estimate(text, job);
  if (!result.ok) return fail(result.error, result.error.field.startsWith('job'));
  const other = estimate(text, counterpartJob(job, options, result.job));
  clearFieldErrors();
  showEffective(result.job, result.weight_format);
  showState('result');
  state.result = result;
  state.resultConfig = text;
  state.other = other;
  renderResults(result, other, { name: modelName(), options });
  lastGood = { text, job, result };
  // The totals and breakdown paint first; charts, "what fits" and comparisons
  // follow after that paint, one per task, and only the latest input's.
  scheduleSecondary(secondaryTasks(lastGood));
}

// The panels after the totals, for one answer. An invalid input cancels the
// pending ones; the dimmed page then finishes them for the last good answer,
// so every panel shows the same job as the cards.
let lastGood = null;
function secondaryTasks({ text, job, result }) {
  return [
    () => renderChart(text, job, result, 'seq'),
    () => renderChart(text, job, result, 'batch'),
    () => renderTimeline(result),
    () => renderFitsPanel(text, job, result),
    () => renderComparisons(text, job, result),
    () => renderClusterPanel(text, job),
    () => markScrollable(document),
  ];
}

// The timeline shows live tensors per phase; its caption says what the total adds (the core's texts).
function renderTimeline(result) {
  $('timeline-box').hidden = !drawTimeline($('chart-timeline'), result.timeline, result.peak_phase);
  const overhead = result.terms.find((t) => t.key === 'overhead');
  $('timeline-caption').textContent = `One training step, phase by phase: the tensors live in each. The total per GPU, ${result.total_text}, ` +
    `is the peak plus ${overhead ? overhead.text : 'the overhead'} of allocator slack and CUDA context.`;
}

// Deferred work: one task per panel, each in its own macrotask after the
// first paint so an input arriving meanwhile runs first; a newer input's
// work replaces the rest of an older one's.
let generation = 0;
const channel = new MessageChannel();
const queued = [];
channel.port1.onmessage = () => queued.shift()?.();
const nextTask = (fn) => { queued.push(fn); channel.port2.postMessage(0); };
function cancelSecondary() {
  generation++;
  delete document.body.dataset.busy;
}
function scheduleSecondary(tasks) {
  const mine = ++generation;
  document.body.dataset.busy = 'true';
  const step = () => {
    if (mine !== generation) return;
    const task = tasks.shift();
    if (!task || !state.result) { delete document.body.dataset.busy; return; }
    try {
      task();
    } finally {
      nextTask(step);
    }
  };
  requestAnimationFrame(() => nextTask(step));
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

// A checkpoint dropped anywhere on the page goes to its panel, any other file is a config.
initModel(models, update, (file) => isCheckpointFile(file) && (openCheckpointFile(file), true));
initCheckpoint(update);
form.addEventListener('submit', (e) => e.preventDefault());
// History: a choice (select, checkbox) adds an entry; typing adds one entry
// at its first keystroke and then keeps replacing it, so Back undoes a whole edit.
let typing = null;
const typed = (e) => e.target.tagName === 'TEXTAREA' || (e.target.tagName === 'INPUT' && !['checkbox', 'radio'].includes(e.target.type));
for (const type of ['input', 'change']) {
  form.addEventListener(type, (e) => {
    if (e.target.closest('.source, .checkpoint')) return;
    if (!typed(e) && type === 'input') return;  // its change event follows
    if (e.target.id === 'custom_gpu_gib') state.customGpuGib = e.target.value.trim();
    else if (e.target.name) touch(e.target.name);
    let push = true;
    if (typed(e)) {
      push = type === 'input' && typing !== e.target;
      typing = type === 'input' ? e.target : null;
    }
    update({ push });
  });
}
$('line-gpu').addEventListener('change', () => { state.lineGpu = $('line-gpu').value; update({ push: true }); });
initFits((id) => { state.fitsGpu = id; update({ push: true }); });
$('compare-add').addEventListener('click', () => {
  const q = stateQuery(readJob());
  q.delete('cmp');
  q.delete('line');
  q.delete('fit');
  // Fields at their default value say nothing: the same job typed two ways is one setup.
  for (const [key, value] of [...q]) if (key in defaults && String(defaults[key]) === value) q.delete(key);
  const setup = q.toString();
  // The same setup twice is one column; a fifth replaces the oldest, and the note says so.
  if (state.compare.includes(setup)) {
    $('compare-note').textContent = 'This setup is already in the comparison.';
    return;
  }
  $('compare-note').textContent = state.compare.length >= 4 ? 'At most 4 setups: the oldest was replaced.' : '';
  if (state.compare.length >= 4) state.compare.shift();
  state.compare.push(setup);
  update({ push: true });
});
window.addEventListener('popstate', () => {
  applyQuery(new URLSearchParams(location.search));
  if (state.source.kind === 'hub' && state.source.hubId) fetchHub({ push: false });
  else update();
});

initActions();

// The iframe embed tells its host how tall it is, for hosts that resize it.
if (embedded && window.parent !== window) {
  // The body's own height (body margin is 0): the document's scrollHeight never falls below the frame, so it could only grow.
  new ResizeObserver(() => window.parent.postMessage({ vramcalcHeight: document.body.getBoundingClientRect().height }, '*'))
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

// The cluster panel loads after the first result (it is not needed to paint one).
function renderClusterPanel(text, job) {
  clusterArgs = { text, job };
  clusterPanel?.render(clusterPlan(text, job, clusterPanel.request()));
  if (clusterPanel) markScrollable($('cluster'));
}
let resizing = 0;
window.addEventListener('resize', () => {
  cancelAnimationFrame(resizing);
  resizing = requestAnimationFrame(() => markScrollable(document));
});
import('./panels/cluster.js').then((mod) => {
  clusterPanel = mod.mount($('cluster'), { hardware: JSON.parse(core.hardware()), fields: state.cluster,
    onChange: () => update({ push: true }) });
  if (clusterArgs && state.result) renderClusterPanel(clusterArgs.text, clusterArgs.job);
}).catch(() => { $('cluster').hidden = true; });

if ('serviceWorker' in navigator && !embedded) navigator.serviceWorker.register('sw.js').catch(() => {});
