// Turns the page's state into core calls and renders the answers. The core
// runs in a worker (core-client.js): every call is awaited, and each input
// supersedes the one before it (a small job's totals come from the same core
// on this thread, in the input's own task: core-local.js):
// - the input's AbortController is aborted by the next input, so its calls
//   still waiting never run and its answers are dropped;
// - while an answer is on its way, the figures on screen are the last good
//   ones, marked busy (aria-busy) and dimmed (after a short delay, style.css),
//   never shown as if they were the new input's;
// - the totals and breakdown paint first; charts, "what fits", comparisons
//   and the cluster planner follow, one per task, only for the latest input.
// body[data-busy] is set from an input until its last panel is drawn (the
// browser tests wait on it).
import { estimate, estimatePair, estimatePairNow, chart, matrix, solve, ladder, cluster as clusterPlan, jobValue, modeTitle,
  onCoreStatus, lookupModel, quoted, CANCELLED } from './vramcalc-client.js';
import { hubConfigWithoutHub } from './hub.js';
import { state, pastedConfigOf, yourJobFields, machineJobFields } from './state.js';
import { readJob, showEffective, showModeFields, showFieldError, clearFieldErrors, labelledMessage } from './panels/job.js';
import { configText, modelName, sourceControl, modelIdOfSource } from './panels/model.js';
import { checkpointFor, checkpointTag } from './panels/checkpoint.js';
import { renderResults, showState } from './panels/results.js';
import { drawChart, drawTimeline } from './panels/charts.js';
import { renderMatrix, renderCompare } from './panels/compare.js';
import { fitsGpu, fitsJob, renderFits } from './panels/fits.js';
import { renderLadder } from './panels/ladder.js';
import { markScrollable } from './render.js';
import { writeUrl } from './page-url.js';
import { yourControl, yoursFromQuery } from './panels/your-gpus.js';
import { machineFromQuery, noMachine, renderMachine } from './panels/your-machine.js';
import { renderLocal, wantsMoe } from './panels/local.js';

const $ = (id) => document.getElementById(id);
let page = null;  // { options, defaults, models, fieldIds, clusterPanel() }

export function initCompute(context) {
  page = context;
  onCoreStatus(showCoreStatus);
}

// ---------------------------------------------------------------- busy, pending, core status

const busyFor = new Set();  // 'compute' (the totals) and 'panels' (the deferred panels)
function busy(what, on) {
  if (on) busyFor.add(what); else busyFor.delete(what);
  if (busyFor.size) document.body.dataset.busy = 'true';
  else delete document.body.dataset.busy;
}
// The figures on screen are the last good ones while a newer answer is on its way.
function pending(on) {
  busy('compute', on);
  $('output').classList.toggle('pending', on);
  if (on) $('output').setAttribute('aria-busy', 'true');
  else $('output').removeAttribute('aria-busy');
}

// The core's own news: a long job, a worker restarted for a newer input, a job stopped.
function showCoreStatus({ kind, message }) {
  const status = $('core-status');
  if (kind === 'done') {
    if (status.dataset.kind === 'slow') status.hidden = true;
    return;
  }
  status.dataset.kind = kind;
  status.textContent = message;
  status.hidden = false;
}
// A new input: a report about an older one no longer applies (a slow one stays until it is answered).
function clearCoreStatus() {
  const status = $('core-status');
  if (status.dataset.kind !== 'slow') status.hidden = true;
}

// ---------------------------------------------------------------- errors

// The control that an error's field belongs to.
function controlFor(field) {
  if (field.startsWith('job.')) {
    const key = field.slice(4).split(/[.[]/)[0];
    return yourControl(key) ?? $(key);  // your GPUs' fields are set at the top
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
  pending(false);
  const control = controlFor(field);
  showFieldError(control, plainMessage(message, field));
  const banner = labelledMessage(field, message);  // "Sequence length: …", not "job.seq: …"
  // Dimmed last result only for the same model: another model's figures never stay.
  const stale = keepResult && state.result !== null && state.resultConfig === configText();
  showState(stale ? 'stale' : 'hidden', { error: stale ? `${banner} (the figures below are the last valid ones)` : banner });
  if (!stale) state.result = null;
  else if (lastGood?.result === state.result) scheduleSecondary(secondaryTasks(lastGood), controller.signal);
}

// ---------------------------------------------------------------- the deferred panels

// Core answers for the deferred panels, kept while their inputs are the same
// (a chart line or another panel's change does not ask the core again).
// A superseded (cancelled) answer is never kept.
const memo = new Map();
async function remembered(kind, config, args, ask) {
  const text = `${checkpointTag()}:${config}`;  // the same config with another checkpoint answers otherwise
  const key = JSON.stringify(args);
  const last = memo.get(kind);
  if (last && last.text === text && last.key === key) return last.answer;
  const answer = await ask();
  const cancelled = Array.isArray(answer) ? answer.some((a) => a.answer.cancelled) : answer.cancelled;
  if (!cancelled) memo.set(kind, { text, key, answer });
  return answer;
}

// One core call per chart: its range, axes, point labels and the user's GPU's line (charts.js).
async function renderChart(text, job, axis, signal) {
  // The job carries the user's GPUs and units (panels/job.js readJob), so the core draws that GPU's line.
  const answer = await remembered(`chart-${axis}`, text, job, () => chart(text, job, axis, { signal }));
  if (!answer.cancelled) drawChart($(axis === 'seq' ? 'chart-seq' : 'chart-batch'), answer);
}

async function renderFitsPanel(text, job, result, signal) {
  const gpu = fitsGpu(result);
  if (!gpu) return;
  const ask = fitsJob(job, gpu);
  const answers = await remembered('fits', text, ask, () => Promise.all(page.options.questions.map(async (question) =>
    ({ question, answer: await solve(text, ask, question, { signal }) }))));
  if (answers.some((a) => a.answer.cancelled)) return;
  renderFits(result, gpu, answers);
}

// Run locally (llama.cpp / Ollama): the quant ladder on your GPU.
const LOCAL_ENGINES = ['llamacpp', 'ollama'];
async function renderLadderPanel(text, job, result, signal) {
  if (result.job.mode !== 'inference' || !LOCAL_ENGINES.includes(result.job.engine)) { renderLadder(null); return; }
  const answer = await remembered('ladder', text, job, () => ladder(text, job, { signal }));
  if (answer.cancelled) return;
  renderLadder(answer);
}

// Your machine (issue 32): the smallest --n-cpu-moe for a mixture-of-experts model under llama.cpp on a GPU.
async function renderLocalPanel(text, job, result, signal) {
  if (!wantsMoe(result)) return;
  const answer = await remembered('n_cpu_moe', text, job, () => solve(text, job, 'n_cpu_moe', { signal }));
  if (!answer.cancelled) renderLocal(result, answer);
}

let removedSetup = null;  // the index of the setup just removed, until the comparison is drawn again
async function renderComparisons(text, job, result, signal) {
  const m = await remembered('matrix', text, job, () => matrix(text, job, { signal }));
  if (m.cancelled) return;
  if (m.ok) renderMatrix($('matrix'), m, result.job);
  const setups = await Promise.all(state.compare.map((query) => setupFor(new URLSearchParams(query), signal)));
  if (setups.some((s) => s.result.cancelled)) return;
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

// The catalog model an id names: { model }, or { error } in the core's words (its quote of the id bounded,
// "did you mean …"; issue 37 H1), or { cancelled }. An alias or Hub id of a catalog model names that model.
async function catalogModel(id, signal) {
  const exact = page.models.find((m) => m.id === id);
  if (exact) return { model: exact };
  const found = await lookupModel(page.models, id, { signal });
  if (found.cancelled) return { cancelled: true };
  return found.ok ? { model: page.models.find((m) => m.id === found.id) } : { error: found.error };
}

// A saved setup (its query string) as a title and a core answer.
async function setupFor(q, signal) {
  const { fieldIds, defaults, models } = page;
  const job = {};
  for (const key of fieldIds) if (q.has(key)) job[key] = jobValue(q.get(key), defaults[key]);
  const { yours, units } = yoursFromQuery(q, { yours: { gpu: '', count: '1', customGb: '' }, units: 'gb' });
  Object.assign(job, yourJobFields(yours, units), machineJobFields(machineFromQuery(q, noMachine())));
  if ((job.mode ?? defaults.mode) !== 'inference') delete job.engine;
  let text = null;
  let title = 'pasted config';
  let refused = null;  // the core's error for a model id the catalog does not have
  if (q.has('model')) {
    const m = await catalogModel(q.get('model'), signal);
    if (m.cancelled) return { title, subtitle: '', result: CANCELLED };
    text = m.model ? JSON.stringify(m.model.config) : null;
    title = m.model ? m.model.name : await quoted(q.get('model'), { signal });
    refused = m.error ?? null;
  } else if (q.has('hf')) {
    title = await quoted(q.get('hf'), { signal });
    // The config fetched for the page, else a kept copy, else the catalog's for a catalog model's Hub id.
    const id = q.get('hf');
    text = id === state.source.hubId ? state.source.hubText : hubConfigWithoutHub(id, models)?.text ?? null;
  } else {
    text = pastedConfigOf(q) || null;
  }
  const result = text ? await estimate(text, job, { signal })
    : { ok: false, error: refused ?? { message: q.has('hf') ? 'config not available: fetch it once from the Hub' : 'config not available: not in the link' } };
  // A refused setup's fields are not the core's reading: they stay out of its subtitle (issue 37 L10: "NaN × 4096").
  const j = result.job;
  const subtitle = result.ok ? `${modeTitle(j.mode)} · ${result.weight_format} · ${j.batch} × ${j.seq} · ${j.gpus} GPU${j.gpus > 1 ? 's' : ''}` : '—';
  return { title, subtitle, result };
}

// The timeline shows live tensors per phase; its caption says what the total adds (the core's texts).
function renderTimeline(result) {
  $('timeline-box').hidden = !drawTimeline($('chart-timeline'), result.timeline, result.peak_phase);
  const overhead = result.terms.find((t) => t.key === 'overhead');
  $('timeline-caption').textContent = `One training step, phase by phase: the tensors live in each. The total per GPU, ${result.total_text}, ` +
    `is the peak plus ${overhead ? overhead.text : 'the overhead'} of allocator slack and CUDA context.`;
}

async function renderClusterPanel(text, job, signal) {
  const panel = page.clusterPanel();
  clusterArgs = { text, job };
  if (!panel) return;
  const answer = await clusterPlan(text, job, panel.request(), { signal });
  if (answer.cancelled) return;
  panel.render(answer);
  markScrollable($('cluster'));
}
let clusterArgs = null;  // the latest result's config and job, for the cluster panel when its module arrives
export function clusterPanelLoaded() {
  if (clusterArgs && state.result) renderClusterPanel(clusterArgs.text, clusterArgs.job, controller.signal);
}

// The panels after the totals, for one answer. An invalid input cancels the
// pending ones; the dimmed page then finishes them for the last good answer,
// so every panel shows the same job as the cards.
let lastGood = null;
function secondaryTasks({ text, job, result }) {
  return [
    (signal) => renderLadderPanel(text, job, result, signal),
    (signal) => renderLocalPanel(text, job, result, signal),
    (signal) => renderChart(text, job, 'seq', signal),
    (signal) => renderChart(text, job, 'batch', signal),
    () => renderTimeline(result),
    (signal) => renderFitsPanel(text, job, result, signal),
    (signal) => renderComparisons(text, job, result, signal),
    (signal) => renderClusterPanel(text, job, signal),
    () => markScrollable(document),
  ];
}

// One task per panel, each in its own macrotask after the first paint so an
// input arriving meanwhile runs first; a newer input's work replaces the rest.
let generation = 0;
const channel = new MessageChannel();
const queued = [];
channel.port1.onmessage = () => queued.shift()?.();
const nextTask = () => new Promise((resolve) => { queued.push(resolve); channel.port2.postMessage(0); });
function cancelSecondary() {
  generation++;
  busy('panels', false);
}
function scheduleSecondary(tasks, signal) {
  const mine = ++generation;
  busy('panels', true);
  requestAnimationFrame(async () => {
    for (const task of tasks) {
      await nextTask();
      if (mine !== generation || !state.result) break;
      try {
        await task(signal);
      } catch (e) {
        console.error(e);
      }
    }
    if (mine === generation) busy('panels', false);
  });
}

// ---------------------------------------------------------------- the totals

let controller = new AbortController();  // the latest input's: the next input aborts it
let serial = 0;
// A new input: the older one's answers are dropped, its calls not yet run never run.
function supersede() {
  controller.abort();
  controller = new AbortController();
  return { mine: ++serial, signal: controller.signal };
}

async function compute() {
  const { mine, signal } = supersede();
  cancelSecondary();
  clearCoreStatus();
  showModeFields($('mode').value);
  const s = state.source;
  const text = configText();
  // A checkpoint belongs to its config; a bad one keeps the last good figures, dimmed.
  const checkpointError = checkpointFor(text);
  if (s.linkError) {
    const message = s.linkError;
    s.linkError = null;
    return fail({ field: 'config', message }, false);
  }
  if (text === null) {
    // The core's words, never the whole id: a 400,000-character one froze the page for 48 s (issue 37 H1).
    const found = await catalogModel(s.modelId, signal);
    if (mine !== serial || found.cancelled) return undefined;
    if (found.error) return fail(found.error, false);
    // An alias or Hub id (model=llama3): its catalog model, and the address says so.
    s.modelId = found.model.id;
    $('model').value = s.modelId;
    return update();
  }
  if (text === '') {
    pending(false);
    clearFieldErrors();
    state.result = null;
    return showState('empty', { empty: s.kind === 'hub' ? 'Type a Hugging Face model id or address and press Fetch config.'
      : 'Paste or drop a config.json to see what it needs.' });
  }
  if (checkpointError) return fail(checkpointError, true);
  const job = readJob({ forCore: true });
  // The launch command names the model as the CLI does (issue 32), unless the job names it.
  const modelId = modelIdOfSource();
  if (modelId && !('model_id' in job)) job.model_id = modelId;
  // A small job's totals on this thread, in the input's own task (painted in the next frame); else the worker's.
  let answer = estimatePairNow(text, job);
  if (answer === undefined) {
    pending(true);
    answer = await estimatePair(text, job, { signal });
    if (mine !== serial || answer.cancelled) return undefined;
  }
  // A trap or a stop answers an error instead of the pair.
  const { result, other } = answer.result ? answer : { result: answer, other: null };
  if (!result.ok) return fail(result.error, result.error.field.startsWith('job'));
  pending(false);
  clearFieldErrors();
  showEffective(result.job, result.weight_format);
  showState('result');
  state.result = result;
  state.resultConfig = text;
  state.other = other;
  renderResults(result, other, { name: modelName(), options: page.options });
  renderLocal(result);
  renderMachine(result);
  lastGood = { text, job, result };
  scheduleSecondary(secondaryTasks(lastGood), signal);
  return undefined;
}

// The core on this thread has started: one answer for the job on screen, discarded, so the wasm has
// compiled what the next input's totals need before it comes (core-local.js).
export function warmLocalTotals() {
  if (lastGood) estimatePairNow(lastGood.text, lastGood.job);
}

// One place every change goes through: the address (url false: it already
// holds the state, after Back or Forward), then the numbers. Resolves once
// the totals are on screen (or superseded).
export function update({ push = false, error = null, url = true } = {}) {
  if (url) writeUrl(push);
  if (error) {
    supersede();
    return fail(error, false);
  }
  return compute().catch((e) => fail({ field: 'internal', message: `internal: ${e.message}` }, false));
}

// Resolves once the latest input's totals are on screen (exports wait for it).
export async function settledResult() {
  while (busyFor.has('compute')) await new Promise((resolve) => setTimeout(resolve, 20));
  return state.result;
}
