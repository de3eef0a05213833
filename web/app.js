// The calculator page: one state object (state.js), one module per panel
// (panels/), the address (page-url.js: the state in the URL fragment) and the
// core calls (page-compute.js: the core runs in a Web Worker). This file starts
// them and wires the events.
import { loadCore, loadModels, trustedScriptURL, intents, startLocalCore } from './vramcalc-client.js';
import { state, stateQuery } from './state.js';
import { initJob, readJob, touch } from './panels/job.js';
import { initModel, fetchHub } from './panels/model.js';
import { initCheckpoint, isCheckpointFile, openCheckpointFile } from './panels/checkpoint.js';
import { initYours } from './panels/your-gpus.js';
import { initIntents, leaveIntent } from './panels/intents.js';
import { initMachine } from './panels/your-machine.js';
import { initActions } from './panels/actions.js';
import { markScrollable } from './render.js';
import { initResults } from './panels/results.js';
import { initColocation } from './panels/colocation.js';
import { initUrl, readLocation, applyQuery, cancelUrlWrites, writeUrl } from './page-url.js';
import { initCompute, update, clusterPanelLoaded, warmLocalTotals, resumePanels } from './page-compute.js';
import { initWhatFits } from './panels/what-fits.js';

const $ = (id) => document.getElementById(id);
const form = $('controls');

// A reason the page cannot work, said where the results go, instead of a blank page.
function fatal(message) {
  $('error').textContent = message;
  $('error').hidden = false;
  $('output').hidden = true;
  document.body.dataset.ready = 'true';
}

const modelsLoading = loadModels();  // models.json downloads while the core compiles
let options, gpuCatalog, hardware, models;
try {
  ({ options, gpus: gpuCatalog, hardware } = await loadCore());
} catch (e) {
  fatal(`${e.message} Reload the page, or report it to the site.`);
  throw e;
}
try {
  models = await modelsLoading;
} catch (e) {
  fatal(`The model catalog could not be read (${e.message}); reload the page, or report it to the site.`);
  throw e;
}
const defaults = options.defaults;
const fieldIds = initJob(options);
const embedded = new URLSearchParams(location.search).has('embed');
if (embedded) {
  document.body.classList.add('embedded');
  // In a host's iframe the answer comes first (in reading and tab order too), then the form.
  document.querySelector('main.layout').prepend(document.getElementById('results'));
  // Your GPUs goes at the top of the form; the four entry points are the full page's.
  $('controls').prepend($('your-gpus'));
}

let clusterPanel = null;  // the cluster panel, once its module has loaded (below)
const context = { options, defaults, models, fieldIds, embedded, clusterPanel: () => clusterPanel };
initUrl(context);
initCompute(context);

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
    if (e.target.closest('.source, .checkpoint, #your-gpus')) return;  // handled by their panels
    if (!typed(e) && type === 'input') return;  // its change event follows
    // Changing what the intent is about hands its recipe's values to the user (panels/intents.js).
    if (['mode', 'framework', 'engine'].includes(e.target.name)) leaveIntent(state.result, fieldIds, e.target.name);
    if (e.target.id === 'fp8_recipe') state.fp8 = e.target.value;
    if (e.target.name) touch(e.target.name);
    let push = true;
    if (typed(e)) {
      push = type === 'input' && typing !== e.target;
      typing = type === 'input' ? e.target : null;
    }
    update({ push });
  });
}
initYours(gpuCatalog, update);
initColocation({ options, models, onChange: (push) => update({ push }) });
initMachine(gpuCatalog, options.ram_kinds, update);
initWhatFits({ models, update, applyQuery, writeUrl, resumePanels });
initResults();
// The four entry points: the core's presets; Pre-train opens the cluster planner.
intents().then((answer) => initIntents(answer, { fieldIds, defaults }, (intent) => {
  update({ push: true });
  if (intent.view === 'cluster') $('cluster').scrollIntoView({ block: 'start' });
  if (intent.view === 'ladder') $('ladder-panel').scrollIntoView({ block: 'nearest' });
}));
$('compare-add').addEventListener('click', () => {
  const q = stateQuery(readJob());
  q.delete('cmp');
  q.delete('fit');
  for (const key of [...q.keys()]) if (key.startsWith('cl_') || key.startsWith('wf_') || key === 'view') q.delete(key);
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

// Back, Forward, or a link with another state opened in this page: the address holds the state.
async function followAddress({ rewrite = false } = {}) {
  cancelUrlWrites();
  const { query, legacy, error } = await readLocation();
  await applyQuery(query);
  if (error) return update({ url: false, error: { field: 'config', message: `config: ${error}` } });
  const url = rewrite && legacy;  // an older ?query link: its state moves to the fragment
  if (state.source.kind === 'hub' && state.source.hubId) return fetchHub({ push: false, url });
  return update({ url });
}
// (A fragment typed into the address bar fires popstate too.)
window.addEventListener('popstate', () => followAddress());

initActions();

// The iframe embed tells its host how tall it is, for hosts that resize it.
if (embedded && window.parent !== window) {
  // The body's own height (body margin is 0): the document's scrollHeight never falls below the frame, so it could only grow.
  new ResizeObserver(() => window.parent.postMessage({ vramcalcHeight: document.body.getBoundingClientRect().height }, '*'))
    .observe(document.body);
}

// ---------------------------------------------------------------- start

try {
  await followAddress({ rewrite: true });
} finally {
  document.body.dataset.ready = 'true';
  performance.mark('vramcalc:first-result');  // read by bench/bench_page.mjs
}
// The core on this thread too, for the totals of the inputs to come (core-local.js).
startLocalCore().then(warmLocalTotals, () => {});

let resizing = 0;
window.addEventListener('resize', () => {
  cancelAnimationFrame(resizing);
  resizing = requestAnimationFrame(() => markScrollable(document));
});
// The cluster panel loads after the first result (it is not needed to paint one).
import('./panels/cluster.js').then((mod) => {
  clusterPanel = mod.mount($('cluster'), { hardware, fields: state.cluster, onChange: () => update({ push: true }) });
  clusterPanelLoaded();
}).catch(() => { $('cluster').hidden = true; });

if ('serviceWorker' in navigator && !embedded) {
  navigator.serviceWorker.register(trustedScriptURL(new URL('sw.js', location.href).href)).catch(() => {});
}
