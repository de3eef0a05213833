// The calculator page: reads the form, asks the core, shows what it says.
import { loadCore, loadModels, estimate, counterpartJob, fitSummary, fetchHubConfig, jobValue, modeTitles } from './vramcalc-client.js';
import { renderBar, renderBreakdownRows, renderFitRows } from './render.js';

const $ = (id) => document.getElementById(id);
const form = $('controls');

const core = await loadCore();
const options = JSON.parse(core.options());
const defaults = options.defaults;
const models = await loadModels();
const fieldIds = Object.keys(defaults).filter((k) => $(k));

// Where the model comes from: the catalog, a pasted config, or the Hub.
const source = { kind: 'catalog', modelId: 'llama-3-8b', pasted: '', hubId: '', hubText: '' };
let lastResult = null;

// ---------------------------------------------------------------- setup

for (const d of options.dtypes) $('dtype').append(new Option(`${d.label} (${d.bits} bits)`, d.id));
for (const k of options.kv_dtypes) $('kv_dtype').append(new Option(k === 'auto' ? 'same as compute' : k, k));
for (const m of models) {
  const label = `${m.name} · ${m.params_total_text}${m.is_moe ? ` (${m.params_active_text} active)` : ''}`;
  $('model').append(new Option(label, m.id));
  $('model-list').append(new Option(m.name, m.name));
}

function setField(key, value) {
  const input = $(key);
  if (input.type === 'checkbox') input.checked = value === true || value === 'true';
  else input.value = String(value);
}

function readJob() {
  const job = {};
  for (const key of fieldIds) {
    const input = $(key);
    job[key] = jobValue(input.type === 'checkbox' ? input.checked : input.value, defaults[key]);
  }
  return job;
}

// ---------------------------------------------------------------- URL state

function base64url(text) {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function unbase64url(text) {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function stateQuery() {
  const q = new URLSearchParams();
  if (source.kind === 'catalog') q.set('model', source.modelId);
  if (source.kind === 'hub') q.set('hf', source.hubId);
  if (source.kind === 'paste') q.set('cfg', base64url(source.pasted));
  const job = readJob();
  for (const key of fieldIds) if (String(job[key]) !== String(defaults[key])) q.set(key, String(job[key]));
  return q;
}

function applyQuery(q) {
  for (const key of fieldIds) setField(key, q.has(key) ? q.get(key) : defaults[key]);
  if (q.has('cfg')) {
    try {
      source.kind = 'paste';
      source.pasted = unbase64url(q.get('cfg'));
    } catch {
      source.pasted = '';
    }
    $('config-text').value = source.pasted;
  } else if (q.has('hf')) {
    source.kind = 'hub';
    source.hubId = q.get('hf');
    $('hub-id').value = source.hubId;
  } else if (q.has('model')) {
    source.modelId = q.get('model');
  }
  if (q.has('embed')) document.body.classList.add('embedded');
}

// ---------------------------------------------------------------- compute + render

function configText() {
  if (source.kind === 'paste') return source.pasted;
  if (source.kind === 'hub') return source.hubText;
  const model = models.find((m) => m.id === source.modelId);
  return model ? JSON.stringify(model.config) : null;
}

function modelName() {
  if (source.kind === 'hub') return source.hubId;
  if (source.kind === 'paste') return 'pasted config.json';
  return models.find((m) => m.id === source.modelId)?.name ?? source.modelId;
}

// The control to outline for an error's field: a job field's own input, or
// wherever the model came from for config errors.
function controlFor(field) {
  if (field.startsWith('job.')) return $(field.slice(4));
  if (field === 'model' || field.startsWith('config')) {
    return { paste: $('config-text'), hub: $('hub-id'), catalog: $('model') }[source.kind];
  }
  return null;
}

function markInvalid(field) {
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  controlFor(field)?.setAttribute('aria-invalid', 'true');
}

function showError(message, field) {
  $('error').textContent = message;
  $('error').hidden = false;
  $('output').hidden = true;
  markInvalid(field);
}

function renderCard(card, result, title) {
  if (title) card.querySelector('[data-title]').textContent = title;
  if (!result.ok) {
    card.querySelector('[data-total]').textContent = '—';
    card.querySelector('[data-sub]').textContent = result.error.message;
    return;
  }
  card.querySelector('[data-total]').textContent = result.total_text;
  card.querySelector('[data-sub]').textContent =
    `per GPU${result.layout.gpus > 1 ? ` × ${result.layout.gpus}` : ''} · ${fitSummary(result)}`;
}

function render(result, other) {
  $('error').hidden = true;
  $('output').hidden = false;
  markInvalid('');
  const m = result.model;
  $('model-info').textContent = `${modelName()}: ${m.params_total_text} parameters` +
    (m.is_moe ? ` (${m.params_active_text} active per token, ${m.experts_per_token} of ${m.experts} experts)` : '') +
    ` · ${m.layers} layers, hidden ${m.hidden_size}`;
  const [inference, training] = result.job.mode === 'inference' ? [result, other] : [other, result];
  renderCard($('card-inference'), inference);
  renderCard($('card-training'), training, modeTitles[result.job.mode === 'inference' ? counterpartJob(result.job, options).mode : result.job.mode]);
  $('card-inference').classList.toggle('current', result.job.mode === 'inference');
  $('card-training').classList.toggle('current', result.job.mode !== 'inference');
  $('breakdown-title').textContent = `${modeTitles[result.job.mode]} · ${result.weight_format} · breakdown per GPU`;
  renderBar($('bar'), result);
  renderBreakdownRows(document.querySelector('#breakdown tbody'), result);
  $('total').textContent = result.total_text;
  $('total-note').textContent = result.layout.gpus > 1
    ? `${result.total_all_gpus_text} over ${result.layout.gpus} GPUs (DP ${result.layout.dp} × TP ${result.layout.tp} × PP ${result.layout.pp})`
    : '';
  $('ratio').textContent = `Raw weights: ${result.weights_reference_text}. This job needs ${result.ratio_text} that.`;
  const notes = $('notes');
  notes.replaceChildren(...result.notes.map((n) => Object.assign(document.createElement('li'), { textContent: n })));
  $('needed-head').textContent = result.job.mode === 'inference' ? 'GPUs needed (TP + PP)' : 'GPUs needed (ZeRO-3)';
  renderFitRows(document.querySelector('#fits tbody'), result);
}

function compute() {
  for (const el of document.querySelectorAll('[data-show]')) {
    el.hidden = !el.dataset.show.split(' ').includes($('mode').value);
  }
  const text = configText();
  history.replaceState(null, '', `?${stateQuery()}`);
  if (text === null) return showError(`model: unknown model '${source.modelId}'`, 'model');
  if (text === '') {
    return showError(source.kind === 'hub' ? 'Hugging Face id: type a model id and press Fetch config'
      : 'config: paste or drop a config.json', 'config');
  }
  const job = readJob();
  const result = estimate(core, text, job);
  if (!result.ok) return showError(result.error.message, result.error.field);
  lastResult = result;
  render(result, estimate(core, text, counterpartJob(job, options)));
}

// ---------------------------------------------------------------- model sources

function selectSource(kind) {
  source.kind = kind;
  for (const tab of document.querySelectorAll('[role=tab]')) tab.setAttribute('aria-selected', String(tab.dataset.source === kind));
  for (const panel of document.querySelectorAll('.source')) panel.hidden = panel.dataset.source !== kind;
}

for (const tab of document.querySelectorAll('[role=tab]')) {
  tab.addEventListener('click', () => { selectSource(tab.dataset.source); compute(); });
}

$('model').addEventListener('change', () => { source.modelId = $('model').value; compute(); });
$('model-search').addEventListener('input', () => {
  const q = $('model-search').value.trim().toLowerCase();
  const matches = [];
  for (const opt of $('model').options) {
    const hit = opt.text.toLowerCase().includes(q) || opt.value.includes(q);
    opt.hidden = !hit;
    if (hit) matches.push(opt);
  }
  const exact = models.find((m) => m.name.toLowerCase() === q || m.id === q);
  const pick = exact ? exact.id : matches.length === 1 ? matches[0].value : null;
  if (pick) {
    $('model').value = pick;
    source.modelId = pick;
    compute();
  }
});

$('config-text').addEventListener('input', () => { source.pasted = $('config-text').value; compute(); });
async function loadFile(file) {
  source.pasted = await file.text();
  $('config-text').value = source.pasted;
  selectSource('paste');
  compute();
}
$('config-file').addEventListener('change', () => { if ($('config-file').files[0]) loadFile($('config-file').files[0]); });
for (const target of [$('config-text'), document.body]) {
  target.addEventListener('dragover', (e) => { e.preventDefault(); $('config-text').classList.add('drop'); });
  target.addEventListener('dragleave', () => $('config-text').classList.remove('drop'));
  target.addEventListener('drop', (e) => {
    e.preventDefault();
    $('config-text').classList.remove('drop');
    const file = e.dataTransfer.files[0];
    if (file) loadFile(file);
  });
}

async function fetchHub() {
  source.hubId = $('hub-id').value.trim();
  source.hubText = '';
  $('hub-fetch').disabled = true;
  try {
    source.hubText = await fetchHubConfig(source.hubId);
    compute();
  } catch (e) {
    history.replaceState(null, '', `?${stateQuery()}`);
    showError(e.message, 'config');
  } finally {
    $('hub-fetch').disabled = false;
  }
}
$('hub-fetch').addEventListener('click', fetchHub);
$('hub-id').addEventListener('keydown', (e) => { if (e.key === 'Enter') fetchHub(); });

// ---------------------------------------------------------------- share / export / embed

$('share').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(location.href);
    $('share').textContent = 'Link copied';
  } catch {
    $('share').textContent = 'Copy the address bar';
  }
  setTimeout(() => { $('share').textContent = 'Copy link'; }, 2000);
});

$('export').addEventListener('click', () => {
  if (!lastResult) return;
  const data = { model: modelName(), config: JSON.parse(configText()), estimate: lastResult, link: location.href };
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
  a.download = `vramcalc-${(source.modelId || 'model').replace(/[^\w.-]/g, '_')}-${lastResult.job.mode}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});

function embedSnippet() {
  const here = new URL('./', location.href).href;
  const job = readJob();
  const attrs = [];
  if (source.kind === 'catalog') attrs.push(`model="${source.modelId}"`);
  for (const key of fieldIds) {
    if (String(job[key]) !== String(defaults[key])) attrs.push(`${key.replaceAll('_', '-')}="${job[key]}"`);
  }
  const iframe = `<iframe src="${here}index.html?${stateQuery()}&embed=1" width="100%" height="720" style="border:0" loading="lazy" title="vramcalc"></iframe>`;
  const widget = `<script type="module" src="${here}widget.js"></script>\n<vram-calc ${attrs.join(' ')}></vram-calc>`;
  return source.kind === 'catalog' ? `${widget}\n\n<!-- or, as an iframe: -->\n${iframe}` : iframe;
}
$('embed').addEventListener('click', () => {
  $('embed-box').hidden = !$('embed-box').hidden;
  $('embed-code').value = embedSnippet();
});

form.addEventListener('input', (e) => { if (!e.target.closest('.source')) compute(); });
form.addEventListener('change', (e) => { if (!e.target.closest('.source')) compute(); });
window.addEventListener('popstate', () => { applyQuery(new URLSearchParams(location.search)); selectSource(source.kind); compute(); });

// ---------------------------------------------------------------- start

applyQuery(new URLSearchParams(location.search));
selectSource(source.kind);
$('model').value = source.modelId;
if (source.kind === 'hub' && source.hubId) fetchHub();
else compute();
document.body.dataset.ready = 'true';

if ('serviceWorker' in navigator && !document.body.classList.contains('embedded')) {
  navigator.serviceWorker.register('sw.js').catch(() => {});
}
