// Results: the head of the core's one answer (docs/answer.md): the verdict for your machine with the
// model's name, the two cards, the capacity line, the recipe, the breakdown (training: steady or peak,
// the core's views), the serving view, the notes, the assumptions (one disclosure) and the GPU table.
// Every number and text here is the core's; the page only places them.
import { labelledMessage } from './job.js';
import { renderVerdict } from './your-gpus.js';
import { renderBar, renderBreakdownRows, renderFitRows, renderList, el } from '../render.js';

const $ = (id) => document.getElementById(id);

function renderCard(box, card) {
  box.hidden = !card;
  if (!card) return;
  box.querySelector('[data-title]').textContent = card.title;
  box.querySelector('[data-total]').textContent = card.total_text;
  box.querySelector('[data-sub]').textContent = card.text;
  box.classList.toggle('current', card.current);
}

// The counterpart refused (its own error): its card says so, the job's card stands.
function renderCardError(box, error) {
  box.hidden = false;
  box.querySelector('[data-total]').textContent = '—';
  box.querySelector('[data-sub]').textContent = labelledMessage(error.field, error.message);
  box.classList.remove('current');
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
  // The one sticky line shows once the verdict itself has scrolled away (it repeats it, so not before).
  new IntersectionObserver(([entry]) => {
    if (entry.isIntersecting) delete $('stick').dataset.shown;
    else if (entry.boundingClientRect.top < 0) $('stick').dataset.shown = '';
  }).observe($('result-head'));
  // The model's name (in the verdict, the phone's bar) leads to the model search, ready to type in.
  document.addEventListener('click', (e) => {
    if (!e.target.closest?.('.model-jump')) return;
    e.preventDefault();
    $('model-search').scrollIntoView({ block: 'center' });
    $('model-search').focus({ preventScroll: true });
  });
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
  const card = result.cards.find((c) => c.current);
  const title = `${card?.title ?? result.job.mode} · ${result.total_scope_text}`;
  $('breakdown-title').textContent = view ? `${title} · ${view.label}` : title;
  // The bar is the step's terms (its segments' shares are the core's): not drawn for the classic count.
  $('bar').hidden = classic;
  if (!classic) renderBar($('bar'), result);
  renderBreakdownRows(document.querySelector('#breakdown tbody'), view ? { terms: view.rows } : result);
  $('total-label').textContent = classic ? view.label : `Total ${result.total_scope_text}`;
  $('total').textContent = view ? view.total_text : result.total_text;
  $('view-text').textContent = view?.text ?? '';
}

// Inference: the KV the users need against what the pool holds (vLLM / SGLang), in one unit, and what the
// users need in all (the headline), as the engine's own view beside it.
function renderServing(result) {
  const s = result.serving_view;
  const box = $('serving-view');
  box.hidden = !s;
  if (!s) return;
  box.textContent = s.text;  // under an engine it ends with fits / does not fit (the core's words)
  box.dataset.fits = String(s.fits);
  const need = $('serving-need');
  need.hidden = !s.need_why;
  need.textContent = s.need_why ? `What the users need: ${s.need_why}. ${s.engine_text}.` : '';
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

// The recipe the figures are, on one line, its fields (and what the machine changed) behind "more".
function renderRecipe(result) {
  const r = result.recipe;
  $('recipe-text').textContent = r.text;
  const items = [...r.fields.map((f) => el('li', { 'data-key': f.key, title: f.source }, `${f.label}: ${f.value}`)),
    ...r.adapted.map((a) => el('li', { class: 'adapted' }, a))];
  $('recipe-fields').replaceChildren(...items);
  $('intent-note').classList.toggle('bare', !items.length);
}

// The presets' values in force: one disclosure, each field once (the core's), its source beside it.
function renderAssumptions(result) {
  const list = result.assumptions ?? [];
  $('assumptions-count').textContent = `Assumptions (${list.length})`;
  $('assumptions').replaceChildren(...list.map((a) => {
    const li = el('li', { 'data-key': a.key }, a.text);
    if (a.source) li.append(el('span', { class: 'source' }, ` ${a.source}`));
    return li;
  }));
  $('assumptions-box').hidden = !list.length;
}

// The phone's bottom bar and the desktop's one sticky line: the model, the headline and the verdict.
function renderQuick(result, name) {
  const h = result.headline;
  const quick = $('quick');
  quick.replaceChildren(el('a', { href: '#model-search', tabindex: '-1', class: 'model-jump' }, name), ': ',
    el('strong', {}, h.total_text), ` ${h.scope_text} · ${result.verdict.text}`);
  quick.dataset.status = result.verdict.status;
  quick.hidden = false;
  const stick = $('stick');
  stick.replaceChildren(el('strong', {}, name), ` · ${h.total_text} ${h.scope_text} · ${result.verdict.text}`);
  stick.dataset.status = result.verdict.status;
  stick.title = stick.textContent;
}

export function renderResults(result, { name }) {
  const m = result.model;
  $('model-info').textContent = `${name}: ${m.params_total_text} parameters` +
    (m.is_moe ? ` (${m.params_active_text} active per token, ${m.experts_per_token} of ${m.experts} experts)` : '') +
    ` · ${m.layers} layers, hidden ${m.hidden_size}`;
  const byKey = (key) => result.cards.find((c) => c.key === key);
  renderCard($('card-inference'), byKey('inference'));
  renderCard($('card-training'), byKey('training'));
  if (result.counterpart && !result.counterpart.ok) {
    renderCardError(result.job.mode === 'inference' ? $('card-training') : $('card-inference'), result.counterpart.error);
  }
  renderWeightsSource(result);
  lastShown = result;
  renderVerdict(result, name);
  // The figures baked into the page at build time (scripts/bake.mjs) are replaced by the core's from now on.
  for (const baked of document.querySelectorAll('[data-baked]')) baked.removeAttribute('data-baked');
  document.documentElement.dataset.firstView = 'core';
  renderRecipe(result);
  renderServing(result);
  renderBreakdown(result);
  $('total-note').textContent = result.layout.gpus > 1
    ? `${result.total_all_gpus_text} over ${result.layout.gpus} GPUs (DP ${result.layout.dp} × TP ${result.layout.tp} × PP ${result.layout.pp})`
    : '';
  $('ratio').textContent = result.ratio_sentence;
  renderList($('notes'), result.notes);
  renderAssumptions(result);
  // The core fits training with the chosen ZeRO stage, or ZeRO-3 when none is chosen (core/fit.cpp).
  $('needed-head').textContent = result.job.mode === 'inference' ? 'GPUs needed (TP + PP)'
    : `GPUs needed (ZeRO-${result.layout.zero > 0 ? result.layout.zero : 3})`;
  // A sequence longer than the model was trained for: a hint, not an error (the numbers still hold).
  const warn = $('seq-hint');
  warn.textContent = result.context_warning ?? '';
  warn.hidden = !warn.textContent;
  renderFitRows(document.querySelector('#fits tbody'), result);
  filterFitRows(result);
  renderQuick(result, name);
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
  // The recipe line sits above the results: another model's figure never stays there either.
  $('intent-note').hidden = kind === 'hidden' || kind === 'empty';
  if (kind !== 'result') $('quick').hidden = true;
  // Exports and the embed snippet describe the figures on screen: none while they are stale.
  for (const id of ['export', 'export-csv', 'export-md', 'export-png', 'embed']) {
    const button = $(id);
    if (button) button.disabled = kind !== 'result';
  }
  if (kind !== 'result' && $('embed-box')) $('embed-box').hidden = true;
}
