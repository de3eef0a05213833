// Results: the two cards (the job and its counterpart), the breakdown, the
// notes and assumptions the core gives, and the GPU table. Every number and
// text here is the core's.
import { fitSummary, modeTitle, counterpartJob } from '../vramcalc-client.js';
import { labelledMessage } from './job.js';
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
  card.querySelector('[data-sub]').textContent =
    `per GPU${result.layout.gpus > 1 ? ` × ${result.layout.gpus}` : ''} · ${fitSummary(result)}`;
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
  $('breakdown-title').textContent = `${modeTitle(result.job.mode)} · ${result.weight_format} · breakdown per GPU`;
  renderBar($('bar'), result);
  renderBreakdownRows(document.querySelector('#breakdown tbody'), result);
  $('total').textContent = result.total_text;
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
  // The phone's always-visible total (a copy of the summary, hidden from screen readers).
  const quick = $('quick');
  quick.replaceChildren(`${modeTitle(result.job.mode)}: `, Object.assign(document.createElement('strong'), { textContent: result.total_text }),
    ` per GPU · ${fitSummary(result)}`);
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
