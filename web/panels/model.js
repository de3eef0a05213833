// Where the model comes from: catalog (searchable), a pasted or dropped
// config.json, or a Hugging Face id / address. Tabs follow the ARIA tabs
// pattern: arrow keys, Home/End, one tab stop.
import { fetchHubConfig, hubIdOf } from '../hub.js';
import { MAX_JSON_TEXT, tooLargeMessage, searchModels, quoted } from '../vramcalc-client.js';
import { state } from '../state.js';

const $ = (id) => document.getElementById(id);
let models = [];
let onChange = () => {};

const tabs = () => [...document.querySelectorAll('#source-tabs [role=tab]')];

export function selectSource(kind, { focus = false } = {}) {
  state.source.kind = kind;
  for (const tab of tabs()) {
    const on = tab.dataset.source === kind;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    if (on && focus) tab.focus();
  }
  for (const panel of document.querySelectorAll('[role=tabpanel][data-source]')) panel.hidden = panel.dataset.source !== kind;
}

export function modelName() {
  const s = state.source;
  if (s.kind === 'hub') return s.hubId;
  if (s.kind === 'paste') return 'pasted config.json';
  return models.find((m) => m.id === s.modelId)?.name ?? s.modelId;
}

// The config text for the current source: null for an unknown catalog id,
// '' when the paste/Hub tab is still empty (not an error: nothing asked yet).
export function configText() {
  const s = state.source;
  if (s.kind === 'paste') return s.pasted;
  if (s.kind === 'hub') return s.hubText;
  const model = models.find((m) => m.id === s.modelId);
  return model ? JSON.stringify(model.config) : null;
}

// The Hugging Face id of the current model (a fetched Hub id, or a catalog
// entry's repository), for the checkpoint's "Get exact size from the Hub".
export function hubIdOfSource() {
  const s = state.source;
  if (s.kind === 'hub') return s.hubText ? s.hubId : null;
  if (s.kind === 'catalog') return models.find((m) => m.id === s.modelId)?.hf_id || null;
  return null;
}

// The model's name in a launch command (the core's job.model_id, issue 32), as the CLI gives it: a fetched Hub
// id, a catalog entry's Hub id (else its id); none for a pasted config (the command then says MODEL).
export function modelIdOfSource() {
  const s = state.source;
  if (s.kind === 'hub') return s.hubText ? s.hubId : null;
  if (s.kind === 'catalog') {
    const model = models.find((m) => m.id === s.modelId);
    return model ? model.hf_id || model.id : null;
  }
  return null;
}

// The control that a config or model error belongs to.
export function sourceControl() {
  return { paste: $('config-text'), hub: $('hub-id'), catalog: $('model') }[state.source.kind];
}

// Search: the core's forgiving search (case, spaces and dashes ignored, Hub ids with or without
// -Instruct / -chat / -it / -Base, aliases such as llama3, r1, phi4), best first. The list shows the
// matches in the core's order and the count counts them; the selected model, when it does not match,
// stays under "Selected" (so the list never loses it), apart from the count.
let searchSerial = 0;
function listModels(ids, selected) {
  const byId = new Map(models.map((m) => [m.id, m]));
  const option = (m) => new Option(`${m.name} · ${m.params_total_text}${m.is_moe ? ` (${m.params_active_text} active)` : ''}`, m.id);
  const select = $('model');
  if (!ids) {
    select.replaceChildren(...models.map(option));
  } else {
    const groups = [];
    if (selected && !ids.includes(selected) && byId.has(selected)) {
      const keep = document.createElement('optgroup');
      keep.label = 'Selected';
      keep.append(option(byId.get(selected)));
      groups.push(keep);
    }
    if (ids.length) {
      const found = document.createElement('optgroup');
      found.label = `${ids.length} ${ids.length === 1 ? 'match' : 'matches'}`;
      found.append(...ids.filter((id) => byId.has(id)).map((id) => option(byId.get(id))));
      groups.push(found);
    }
    select.replaceChildren(...groups);
  }
  select.value = selected;
}

// body[data-searching] while the latest search is with the core (its choice then goes through update(), which sets
// body[data-busy]): the browser tests wait on both.
async function filterModels(pickOne = true) {
  const mine = ++searchSerial;
  document.body.dataset.searching = 'true';
  try {
    await searchAndPick(mine, pickOne);
  } finally {
    if (mine === searchSerial) delete document.body.dataset.searching;
  }
}

async function searchAndPick(mine, pickOne) {
  const raw = $('model-search').value.trim();
  if (!raw) {
    listModels(null, state.source.modelId);
    $('search-status').textContent = '';
    return;
  }
  const answer = await searchModels(models, hubIdOf(raw) ?? raw);
  if (mine !== searchSerial || answer.cancelled) return;
  if (!answer.ok) {
    $('search-status').textContent = answer.error.text ?? answer.error.message;
    return;
  }
  const ids = answer.models.map((m) => m.id);
  // The search text quoted as the core quotes input: bounded, U+202E and other controls escaped (issue 37 I1).
  const shown = ids.length === 0 ? await quoted(raw) : '';
  if (mine !== searchSerial) return;
  const pick = answer.exact ?? (ids.length === 1 ? ids[0] : null);
  if (pickOne && pick && pick !== state.source.modelId) {
    state.source.modelId = pick;
    onChange({ push: true });
  }
  listModels(ids, state.source.modelId);
  $('search-status').textContent = ids.length === 0 ? `No model matches “${shown}”.`
    : `${ids.length} ${ids.length === 1 ? 'match' : 'matches'}`;
}

function setHubStatus(text) { $('hub-status').textContent = text; }
// Each fetch and each state change is numbered: a fetch that answers after the page has
// moved on (Back, Forward, another fetch) leaves the state and the status alone.
let hubRequest = 0;
// A Hub state reached without a fetch (Back, Forward, a new link) has no status of its own.
export function resetHubStatus() {
  ++hubRequest;
  setHubStatus('');
}

// url false: the address already holds this state (Back, Forward, a link).
export async function fetchHub({ push = true, url = true } = {}) {
  const mine = ++hubRequest;
  const s = state.source;
  s.hubId = $('hub-id').value.trim();
  s.hubText = '';
  s.hubSaved = false;
  $('hub-fetch').disabled = true;
  setHubStatus('Fetching…');
  try {
    const got = await fetchHubConfig(s.hubId, models);
    if (mine !== hubRequest) return;
    s.hubId = got.id;
    $('hub-id').value = got.id;
    s.hubText = got.text;
    s.hubSaved = got.saved;
    setHubStatus(got.saved ? 'Offline: using the copy saved when this config was last fetched.'
      : got.catalog ? `${got.reason}: using the catalog's copy of its config (${got.catalog}).` : '');
    onChange({ push, url });
  } catch (e) {
    if (mine !== hubRequest) return;
    setHubStatus('');
    onChange({ push, url, error: { field: 'config', message: e.message } });
  } finally {
    $('hub-fetch').disabled = false;
  }
}

// Sizes are checked before any work: a config over the core's limit is refused
// from its size alone, never read, put in the text box or the address.
async function loadFile(file) {
  selectSource('paste');
  if (file.size > MAX_JSON_TEXT) {
    onChange({ url: false, error: { field: 'config', message: tooLargeMessage('config', file.name, file.size) } });
    return;
  }
  state.source.pasted = await file.text();
  $('config-text').value = state.source.pasted;
  onChange({ push: true });
}

// A paste over the limit (counted in UTF-16 units, each at least one UTF-8 byte) is refused
// at once, each keystroke; it stays out of the address and the core.
function pasted() {
  const text = $('config-text').value;
  if (text.length > MAX_JSON_TEXT) {
    onChange({ url: false, error: { field: 'config', message: tooLargeMessage('config', 'the pasted text', 0) } });
    return;
  }
  state.source.pasted = text;
  onChange({});
}

// takeFile(file): another panel's claim on a dropped file (the checkpoint panel
// takes weight headers); true when it took it, else the file is read as a config.
export function initModel(catalog, changed, takeFile = () => false) {
  models = catalog;
  onChange = changed;
  listModels(null, state.source.modelId);
  const list = tabs();
  for (const tab of list) {
    tab.addEventListener('click', () => { selectSource(tab.dataset.source); onChange({ push: true }); });
    tab.addEventListener('keydown', (e) => {
      const i = list.indexOf(tab);
      const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: list.length - 1 }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      const to = list[(next + list.length) % list.length];
      selectSource(to.dataset.source, { focus: true });
      onChange({ push: true });
    });
  }
  $('model').addEventListener('change', () => { state.source.modelId = $('model').value; onChange({ push: true }); });
  $('model-search').addEventListener('input', () => filterModels());
  $('config-text').addEventListener('input', pasted);
  $('config-file').addEventListener('change', () => { if ($('config-file').files[0]) loadFile($('config-file').files[0]); });
  // A file dropped anywhere on the page (the text box's drops bubble here): one handler, one read.
  document.body.addEventListener('dragover', (e) => { e.preventDefault(); $('config-text').classList.add('drop'); });
  document.body.addEventListener('dragleave', () => $('config-text').classList.remove('drop'));
  document.body.addEventListener('drop', (e) => {
    e.preventDefault();
    $('config-text').classList.remove('drop');
    const file = e.dataTransfer.files[0];
    if (file && !takeFile(file)) loadFile(file);  // a checkpoint dropped anywhere: its header
  });
  $('hub-fetch').addEventListener('click', () => fetchHub());
  $('hub-id').addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); fetchHub(); } });
}

// After the URL changed the source: show it in the controls.
export function showSource() {
  const s = state.source;
  selectSource(s.kind);
  $('model').value = s.modelId;
  $('config-text').value = s.pasted;
  $('hub-id').value = s.hubId;
  filterModels(false);
}
