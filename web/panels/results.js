// Results: the verdict for your GPUs, the two cards (the job and its
// counterpart), the breakdown (training: steady or peak, the core's views),
// the serving view, the notes and assumptions the core gives, and the GPU
// table. Every number and text here is the core's.
import { modeTitle, counterpartJob } from '../vramcalc-client.js';
import { labelledMessage } from './job.js';
import { renderVerdict } from './your-gpus.js';
import { renderBar, renderBreakdownRows, renderFitRows, renderList } from '../render.js';

const $ = (id) => document.getElementById(id);

function renderCard(card, result, title) {
  if (title) card.querySelector('[data-title]').textContent = title;
  if (!result.ok) {
    card.querySelector('[data-total]').textContent = '—';
    card.querySelector('[data-sub]').textContent = labelledMessage(result.error.field, result.error.message);
    return;
  }
  card.querySelector('[data-total]').textContent = result.total_text;
  // The verdict with no GPU chosen already says where the total is ("… on one GPU", "… in all").
  card.querySelector('[data-sub]').textContent = result.verdict.status === 'none' ? result.verdict.text
    : `${result.total_scope_text} · ${result.verdict.text}`;
}

// The GPU table shows your GPU, the one recommended and a few common ones, until "Show all".
// A display choice of the page (which rows), not a figure: every cell is the core's.
const COMMON = new Set(['rtx3060', 'rtx4090', 'rtx5090', 'a100-80', 'h100', 'h200', 'b200', 'mi300x', 'm4-max-128']);
let showAllGpus = false;
function filterFitRows(result) {
  const v = result.verdict;
  const yours = new Set(['custom', v.gpu, v.recommendation?.gpu].filter(Boolean));
  let hidden = 0;
  for (const row of document.querySelector('#fits tbody').rows) {
    const id = row.dataset.gpu;
    row.classList.toggle('yours', id === 'custom' || id === v.gpu);
    row.hidden = !showAllGpus && !yours.has(id) && !COMMON.has(id);
    hidden += row.hidden;
  }
  const button = $('fits-all');
  button.hidden = !showAllGpus && hidden === 0;
  button.textContent = showAllGpus ? 'Show fewer GPUs' : `Show all GPUs (${hidden} more)`;
  button.setAttribute('aria-expanded', String(showAllGpus));
}
export function initResults() {
  $('fits-all').addEventListener('click', () => {
    showAllGpus = !showAllGpus;
    if (lastShown) filterFitRows(lastShown);
  });
  for (const input of document.querySelectorAll('input[name=view-choice]')) {
    input.addEventListener('change', () => { if (lastShown) renderBreakdown(lastShown); });
  }
}
let lastShown = null;

// Training: the core's two counts, steady (every state at once, as the classic explanation
// counts it) or at the step's peak (what the GPU must hold, the total). Inference: the terms.
function renderBreakdown(result) {
  const views = result.views ?? [];
  $('views-switch').hidden = !views.length;
  const chosen = views.length ? document.querySelector('input[name=view-choice]:checked')?.value : null;
  const view = views.find((v) => v.key === chosen) ?? null;
  const classic = view?.key === 'classic';
  const title = `${modeTitle(result.job.mode)} · ${result.weight_format} · ${result.total_scope_text}`;
  $('breakdown-title').textContent = view ? `${title} · ${view.label}` : title;
  // The bar is the step's terms (its segments' shares are the core's): not drawn for the classic count.
  $('bar').hidden = classic;
  if (!classic) renderBar($('bar'), result);
  renderBreakdownRows(document.querySelector('#breakdown tbody'), view ? { terms: view.rows } : result);
  $('total-label').textContent = classic ? view.label : `Total ${result.total_scope_text}`;
  $('total').textContent = view ? view.total_text : result.total_text;
  $('view-text').textContent = view?.text ?? '';
}

// Inference: the KV the users need against what the pool holds (vLLM / SGLang), in one unit.
function renderServing(result) {
  const s = result.serving_view;
  const box = $('serving-view');
  box.hidden = !s;
  if (!s) return;
  box.textContent = s.text;  // under an engine it ends with fits / does not fit (the core's words)
  box.dataset.fits = String(s.fits);
}

// Where the weights' size comes from (the core's weights_source), said plainly.
const weightSources = {
  quantization_config: 'as the config\'s quantization_config ships them',
  job: 'as chosen under Job',
};
function renderWeightsSource(result) {
  const p = $('weights-source');
  const weights = result.terms.find((t) => t.key === 'weights');
  p.dataset.source = result.weights_source;
  p.textContent = result.weights_source === 'exact'
    ? `Weights: exact to the byte, ${weights?.why ?? result.weight_format}`
    : `Weights: ${result.weight_format}, ${weightSources[result.weights_source] ?? result.weights_source}`;
}

export function renderResults(result, other, { name, options }) {
  const m = result.model;
  $('model-info').textContent = `${name}: ${m.params_total_text} parameters` +
    (m.is_moe ? ` (${m.params_active_text} active per token, ${m.experts_per_token} of ${m.experts} experts)` : '') +
    ` · ${m.layers} layers, hidden ${m.hidden_size}`;
  const inferenceFirst = result.job.mode === 'inference';
  const [inference, training] = inferenceFirst ? [result, other] : [other, result];
  renderCard($('card-inference'), inference);
  renderWeightsSource(result);
  renderCard($('card-training'), training, modeTitle(inferenceFirst ? counterpartJob(result.job, options).mode : result.job.mode));
  $('card-inference').classList.toggle('current', inferenceFirst);
  $('card-training').classList.toggle('current', !inferenceFirst);
  lastShown = result;
  renderVerdict(result);
  // The figures baked into the page at build time (scripts/bake.mjs) are replaced by the core's from now on.
  for (const baked of document.querySelectorAll('[data-baked]')) baked.removeAttribute('data-baked');
  document.documentElement.dataset.firstView = 'core';
  renderServing(result);
  renderBreakdown(result);
  $('total-note').textContent = result.layout.gpus > 1
    ? `${result.total_all_gpus_text} over ${result.layout.gpus} GPUs (DP ${result.layout.dp} × TP ${result.layout.tp} × PP ${result.layout.pp})`
    : '';
  $('ratio').textContent = `Raw weights: ${result.weights_reference_text}. This job needs ${result.ratio_text} that.`;
  renderList($('notes'), result.notes);
  renderList($('assumptions'), result.assumptions);
  $('assumptions-box').hidden = !result.assumptions?.length;
  // The core fits training with the chosen ZeRO stage, or ZeRO-3 when none is chosen (core/fit.cpp).
  $('needed-head').textContent = result.job.mode === 'inference' ? 'GPUs needed (TP + PP)'
    : `GPUs needed (ZeRO-${result.layout.zero > 0 ? result.layout.zero : 3})`;
  // A sequence longer than the model was trained for: a hint, not an error (the numbers still hold).
  const warn = $('seq-hint');
  warn.textContent = result.context_warning ?? '';
  warn.hidden = !warn.textContent;
  renderFitRows(document.querySelector('#fits tbody'), result);
  filterFitRows(result);
  // The phone's always-visible verdict (a copy, hidden from screen readers).
  const quick = $('quick');
  quick.replaceChildren(`${modeTitle(result.job.mode)}: `, Object.assign(document.createElement('strong'), { textContent: result.total_text }),
    ` ${result.total_scope_text} · ${result.verdict.text}`);
  quick.dataset.status = result.verdict.status;
  quick.hidden = false;
}

// What the results area shows: 'result' (fresh), 'stale' (the last good
// result, dimmed, while a job field is invalid), 'hidden' (config/model
// errors or failures: nothing of another model may stay on screen), or
// 'empty' (nothing asked yet).
export function showState(kind, { error = '', empty = '' } = {}) {
  $('error').hidden = !error;
  $('error').textContent = error;
  $('empty').hidden = kind !== 'empty';
  $('empty').textContent = empty;
  $('output').hidden = kind === 'hidden' || kind === 'empty';
  $('output').classList.toggle('stale', kind === 'stale');
  if (kind === 'hidden' || kind === 'empty') $('model-info').textContent = '';
  if (kind !== 'result') $('quick').hidden = true;
  // Exports and the embed snippet describe the figures on screen: none while they are stale.
  for (const id of ['export', 'export-csv', 'export-md', 'export-png', 'embed']) {
    const button = $(id);
    if (button) button.disabled = kind !== 'result';
  }
  if (kind !== 'result' && $('embed-box')) $('embed-box').hidden = true;
}
