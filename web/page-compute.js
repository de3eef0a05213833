// Turns the page's state into the one question the core answers (docs/answer.md: your machine, the intent, the job)
// and renders its answer. The core runs in a Web Worker (core-client.js): every call is awaited, and each input
// supersedes the one before it (a small job's head comes from the same core on this thread, in the input's own task:
// core-local.js):
// - the input's AbortController is aborted by the next input, so its calls still waiting never run and its answers
//   are dropped;
// - while an answer is on its way, the figures on screen are the last good ones, marked busy (aria-busy) and dimmed
//   (after a short delay, style.css), never shown as if they were the new input's;
// - the head (verdict, cards, breakdown, notes) paints first; the later parts of the same answer (the ladder, charts,
//   what fits, the matrix, the planner) follow, one per task, each asked with the same question, only for the latest
//   input. The page does no arithmetic: every part is the core's.
// body[data-busy] is set from an input until its last panel is drawn (the browser tests wait on it).
import { answer, answerNow, jobValue, onCoreStatus, lookupModel, quoted, CANCELLED } from './vramcalc-client.js';
import { hubConfigWithoutHub } from './hub.js';
import { state, pastedConfigOf, questionFor } from './state.js';
import { readJob, coreJob, showEffective, showModeFields, showFieldError, clearFieldErrors, labelledMessage } from './panels/job.js';
import { configText, modelName, sourceControl, modelIdOfSource } from './panels/model.js';
import { checkpointFor, checkpointTag } from './panels/checkpoint.js';
import { renderResults, showState } from './panels/results.js';
import { drawChart, drawTimeline } from './panels/charts.js';
import { renderMatrix, renderCompare } from './panels/compare.js';
import { renderFits } from './panels/fits.js';
import { renderLadder } from './panels/ladder.js';
import { markScrollable } from './render.js';
import { writeUrl } from './page-url.js';
import { yourControl, yoursFromQuery } from './panels/your-gpus.js';
import { renderPosttrain } from './panels/posttrain.js';
import { renderServingExtras } from './panels/serving-extras.js';
import { renderColocation, colocationControl } from './panels/colocation.js';
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
  if (field === 'intent') return document.querySelector('#intents button') ?? null;
  if (field === 'fp8') return $('fp8_recipe');
  if (field.startsWith('job.')) {
    const key = field.slice(4).split(/[.[]/)[0];
    return colocationControl(field) ?? yourControl(key) ?? $(key);  // your GPUs' fields are set at the top
  }
  if (field === 'model' || field.startsWith('config') || field.startsWith('Hugging')) return sourceControl();
  if (field.startsWith('checkpoint')) return $('checkpoint-file');
  return null;
}
// The message under a field reads without the field path in front; a checkpoint's keeps it (it names the part at fault).
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

// Core answers for the deferred panels, kept while their inputs are the same (a chart line or another panel's change
// does not ask the core again). A superseded (cancelled) answer is never kept.
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

// One part of the answer to the question on screen (the same question as its head: its own parts agree).
function part(kind, text, question, signal) {
  return remembered(kind, text, question, () => answer(text, { ...question, parts: [kind] }, { signal }));
}

// Both charts from the answer's charts part: each its range, axes, point labels and your GPU's line (charts.js).
async function renderCharts(text, question, signal) {
  const a = await part('charts', text, question, signal);
  if (a.cancelled) return;
  drawChart($('chart-seq'), a.ok ? a.charts.seq : a);
  drawChart($('chart-batch'), a.ok ? a.charts.batch : a);
}

async function renderFitsPanel(text, question, signal) {
  const a = await part('what_fits', text, question, signal);
  if (a.cancelled) return;
  renderFits(a.ok ? a.what_fits : { text: a.error.text ?? a.error.message, rows: [] });
}

// Run locally (llama.cpp / Ollama): the quant ladder on your GPU.
const LOCAL_ENGINES = ['llamacpp', 'ollama'];
async function renderLadderPanel(text, question, result, signal) {
  if (result.job.mode !== 'inference' || !LOCAL_ENGINES.includes(result.job.engine)) { renderLadder(null); return; }
  const a = await part('ladder', text, question, signal);
  if (a.cancelled) return;
  renderLadder(a.ok ? a.ladder : a);
}

// Your machine (issue 32): the smallest --n-cpu-moe for an MoE model under llama.cpp on a GPU (the what-fits part's row).
async function renderLocalPanel(text, question, result, signal) {
  if (!wantsMoe(result)) return;
  const a = await part('what_fits', text, question, signal);
  if (a.cancelled) return;
  const row = a.ok ? a.what_fits.rows.find((r) => r.question === 'n_cpu_moe') : null;
  renderLocal(result, row ? { ok: row.found, answer: row.answer, text: row.text } : null);
}

let removedSetup = null;  // the index of the setup just removed, until the comparison is drawn again
async function renderComparisons(text, question, result, signal) {
  const a = await part('matrix', text, question, signal);
  if (a.cancelled) return;
  if (a.ok && a.matrix.ok) renderMatrix($('matrix'), a.matrix, result.job);
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

// A saved setup (its query string) as a title and the head of the core's answer to its own question.
async function setupFor(q, signal) {
  const { fieldIds, defaults, models } = page;
  const job = {};
  for (const key of fieldIds) if (q.has(key)) job[key] = jobValue(q.get(key), defaults[key]);
  const { yours, units } = yoursFromQuery(q, { yours: { gpu: '', count: '1', customGb: '' }, units: 'gb' });
  if (q.has('machine_jobs')) job.machine_jobs = q.get('machine_jobs');
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
  const asked = questionFor({ job: coreJob(job), name: title, yours, units, machine: machineFromQuery(q, noMachine()), intent: q.get('intent') ?? '', fp8: q.get('fp8_recipe') ?? '',
    cluster: {}, parts: ['head'] });
  const result = text ? await answer(text, asked, { signal })
    : { ok: false, error: refused ?? { message: q.has('hf') ? 'config not available: fetch it once from the Hub' : 'config not available: not in the link' } };
  // A refused setup's fields are not the core's reading: its subtitle is the answer's recipe line, or none (issue 37 L10).
  return { title, subtitle: result.ok ? result.recipe.text : '—', result };
}

// The timeline shows live tensors per phase; its caption says what the total adds (the core's texts).
function renderTimeline(result) {
  $('timeline-box').hidden = !drawTimeline($('chart-timeline'), result.timeline, result.peak_phase);
  const overhead = result.terms.find((t) => t.key === 'overhead');
  $('timeline-caption').textContent = `One training step, phase by phase: the tensors live in each. The total per GPU, ${result.total_text}, ` +
    `is the peak plus ${overhead ? overhead.text : 'the overhead'} of allocator slack and CUDA context.`;
}

async function renderClusterPanel(text, question, signal) {
  const panel = page.clusterPanel();
  clusterArgs = { text, question };
  if (!panel) return;
  const a = await part('planner', text, { ...question, cluster: panel.request() }, signal);
  if (a.cancelled) return;
  panel.render(a.ok ? a.planner : a, a.ok ? a.planner_check : null, state.result);
  markScrollable($('cluster'));
}
let clusterArgs = null;  // the latest result's config and question, for the cluster panel when its module arrives
export function clusterPanelLoaded() {
  if (clusterArgs && state.result) renderClusterPanel(clusterArgs.text, clusterArgs.question, controller.signal);
}

// The panels after the head, for one answer. An invalid input cancels the pending ones; the dimmed page then finishes
// them for the last good answer, so every panel shows the same job as the cards.
let lastGood = null;
function secondaryTasks({ text, question, result }) {
  return [
    (signal) => renderLadderPanel(text, question, result, signal),
    (signal) => renderLocalPanel(text, question, result, signal),
    (signal) => renderCharts(text, question, signal),
    () => renderTimeline(result),
    (signal) => renderFitsPanel(text, question, signal),
    (signal) => renderComparisons(text, question, result, signal),
    (signal) => renderClusterPanel(text, question, signal),
    () => markScrollable(document),
  ];
}

// One task per panel, each in its own macrotask after the first paint so an input arriving meanwhile runs first; a
// newer input's work replaces the rest.
let generation = 0;
const channel = new MessageChannel();
const queued = [];
channel.port1.onmessage = () => queued.shift()?.();
const nextTask = () => new Promise((resolve) => { queued.push(resolve); channel.port2.postMessage(0); });
function cancelSecondary() {
  generation++;
  busy('panels', false);
}
// While "What can I run?" covers the answer its panels wait (the list has the worker); they run when it closes.
let held = null;
function scheduleSecondary(tasks, signal) {
  held = state.whatFits.open ? { tasks, signal } : null;
  if (held) return;
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

export function resumePanels() {
  if (held && !held.signal.aborted && state.result && !state.whatFits.open) scheduleSecondary(held.tasks, held.signal);
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
  const question = currentQuestion();
  const head = { ...question, parts: ['head'] };
  // A small job's head on this thread, in the input's own task (painted in the next frame); else the worker's.
  let result = answerNow(text, head);
  if (result === undefined) {
    pending(true);
    result = await answer(text, head, { signal });
    if (mine !== serial || result.cancelled) return undefined;
  }
  if (!result.ok) return fail(result.error, /^(job|intent|fp8)/.test(result.error.field));
  pending(false);
  clearFieldErrors();
  showEffective(result.job, result.weight_format);
  showModeFields(result.job.mode);  // the mode in force (an intent's, when the form left it to the core)
  showState('result');
  state.result = result;
  state.resultConfig = text;
  state.other = result.counterpart;
  renderResults(result, { name: modelName(), options: page.options });
  renderPosttrain(result);  // issue 36: the post-training step, the serving extras, the shared GPU
  renderServingExtras(result);
  renderColocation(result);
  renderLocal(result);  // issue 32: the whole machine, its pools, speed and command
  renderMachine(result);
  lastGood = { text, question, result };
  scheduleSecondary(secondaryTasks(lastGood), signal);
  return undefined;
}

// The question on screen: your machine, the intent, the job fields you set (no serving engine on a training job), the
// FP8 recipe and the planner's fields (docs/answer.md).
export function currentQuestion() {
  // No serving engine on a training job, no field the mode refuses (options().field_modes), the models sharing the GPU.
  const job = coreJob(readJob());
  // The launch command names the model as the CLI does (issue 32), unless the job names it.
  const modelId = modelIdOfSource();
  if (modelId && !('model_id' in job)) job.model_id = modelId;
  return questionFor({ job, name: modelName() });
}

// The core on this thread has started: one answer for the job on screen, discarded, so the wasm has compiled what the
// next input's totals need before it comes (core-local.js).
export function warmLocalTotals() {
  if (lastGood) answerNow(lastGood.text, { ...lastGood.question, parts: ['head'] });
}

// One place every change goes through: the address (url false: it already holds the state, after Back or Forward),
// then the numbers. Resolves once the totals are on screen (or superseded).
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
