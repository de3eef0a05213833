// Your machine (issue 32): "Your GPUs" gains the system RAM. Its size (in the unit it was typed in: GB by
// default, GiB when the units switch says so), and, under "RAM kind, speed, in use", its kind (DDR4, DDR5,
// LPDDR5, LPDDR5X: the core's options().ram_kinds), channels and MT/s or a measured bandwidth, and the memory
// other programs already hold. Sent to the core as the job's ram_gb / ram_gib, ram_used_gb / ram_used_gib,
// ram_kind, ram_channels, ram_mts, ram_bandwidth_gbs (state.js machineJobFields), so llama.cpp's, Ollama's
// and MLX's verdict checks both pools (docs/machine.md). Remembered between visits (localStorage
// 'vramcalc.yourMachine'), kept in the URL under the same names. A unified-memory machine (Apple, Strix
// Halo, DGX Spark: the core's gpus() `unified`) has no separate RAM: the box gives way to the core's words
// on the GPU's share of the one memory.
import { state } from '../state.js';

const $ = (id) => document.getElementById(id);
export const REMEMBERED_MACHINE = 'vramcalc.yourMachine';

export const noMachine = () => ({ ram: '', ramUnit: 'gb', used: '', kind: '', channels: '', mts: '', bandwidth: '' });
// The controls, by the state's key.
const CONTROLS = { ram: 'ram-gb', used: 'machine-ram-used', kind: 'machine-ram-kind', channels: 'machine-ram-channels',
  mts: 'machine-ram-mts', bandwidth: 'machine-ram-bandwidth' };
// The job fields, by the control that sets them (errors go under the control).
const FIELD_CONTROLS = { ram_gb: 'ram', ram_gib: 'ram', ram_used_gb: 'used', ram_used_gib: 'used', ram_kind: 'kind',
  ram_channels: 'channels', ram_mts: 'mts', ram_bandwidth_gbs: 'bandwidth' };

const unifiedIds = new Set();  // catalog GPUs that are unified-memory machines (the core's gpus())
const kindIds = new Set();     // the core's RAM kinds

// A stored value: text or a number as typed, of a length any of these fields could take; else none.
const storedText = (value) => {
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
  return text.length <= 100 ? text : '';
};

// What the visitor typed last time. Storage is any script of this origin's to write: only what remember()
// would have written is taken.
function remembered() {
  const machine = noMachine();
  try {
    const saved = JSON.parse(localStorage.getItem(REMEMBERED_MACHINE) ?? 'null');
    if (!saved || typeof saved !== 'object') return machine;
    for (const key of Object.keys(CONTROLS)) machine[key] = storedText(saved[key]);
    machine.ramUnit = saved.ramUnit === 'gib' ? 'gib' : 'gb';
    if (!kindIds.has(machine.kind)) machine.kind = '';
  } catch { /* storage refused (private mode) or damaged: nothing remembered */ }
  return machine;
}

function remember() {
  try {
    localStorage.setItem(REMEMBERED_MACHINE, JSON.stringify({ ...state.machine, kind: kindIds.has(state.machine.kind) ? state.machine.kind : '' }));
  } catch { /* storage refused: the machine lasts this visit */ }
}

// Your machine as a link states it: the remembered one, then each key the link gives (GiB when the link gives ram_gib).
export function machineFromQuery(q, base = remembered()) {
  const machine = { ...base };
  // ram: the widget's attribute (GB), in its "Open in vramcalc" link.
  for (const [key, unit] of [['ram', 'gb'], ['ram_gb', 'gb'], ['ram_gib', 'gib']]) {
    if (q.has(key)) Object.assign(machine, { ram: q.get(key), ramUnit: unit });
  }
  const used = ['ram_used_gb', 'ram_used_gib'].find((key) => q.has(key));
  if (used) machine.used = q.get(used);
  if (q.has('ram_kind')) machine.kind = q.get('ram_kind');
  if (q.has('ram_channels')) machine.channels = q.get('ram_channels');
  if (q.has('ram_mts')) machine.mts = q.get('ram_mts');
  if (q.has('ram_bandwidth_gbs')) machine.bandwidth = q.get('ram_bandwidth_gbs');
  return machine;
}

export function applyMachine(q) {
  state.machine = machineFromQuery(q);
  showMachine();
}

// The control that shows an error about one of these fields, or null.
export function machineControl(key) {
  return Object.hasOwn(FIELD_CONTROLS, key) ? $(CONTROLS[FIELD_CONTROLS[key]]) : null;
}

function showMachine(gpu = state.yourGpus.gpu) {
  const m = state.machine;
  const unit = m.ramUnit === 'gib' ? 'GiB' : 'GB';
  $('machine-ram-label').textContent = `System RAM (${unit})`;
  $('machine-ram-used-label').textContent = `In use by other programs (${unit})`;
  for (const [key, id] of Object.entries(CONTROLS)) {
    const control = $(id);
    if (control.value === m[key]) continue;  // (a half-typed number, "1e", reads as '': it stays as typed)
    control.value = m[key];
    // A RAM kind the list does not have (from a link) stays as given, for the core to name it.
    if (control.value !== m[key] && control.tagName === 'SELECT') {
      control.append(new Option('A RAM kind not in the list (from the link)', m[key]));
      control.value = m[key];
    }
  }
  // A machine with one memory: the RAM is the machine's own (the core says how much the GPU may use of it).
  $('machine-ram-box').hidden = unifiedIds.has(gpu);
  // Kind, speed and memory in use are worth opening when one is set.
  if (m.used || m.kind || m.channels || m.mts || m.bandwidth) $('machine-more').open = true;
}

// gpuCatalog: the core's gpus(); ramKinds: options().ram_kinds ({id, label}); onChange({ push }) recomputes.
export function initMachine(gpuCatalog, ramKinds, onChange) {
  for (const g of gpuCatalog) if (g.unified) unifiedIds.add(g.id);
  const kind = $('machine-ram-kind');
  kind.replaceChildren(...(ramKinds ?? []).map((k) => {
    kindIds.add(k.id);
    return new Option(k.label, k.id === 'unknown' ? '' : k.id);
  }));
  kindIds.add('');
  kindIds.delete('unknown');
  const box = $('your-gpus');  // the band at the top: "Your GPUs" and this RAM
  const byId = Object.fromEntries(Object.entries(CONTROLS).map(([key, id]) => [id, key]));
  const changed = (e) => {
    const key = byId[e.target.id];
    if (!key) return;
    state.machine[key] = e.target.value.trim();
    // Typed now: in the unit the page shows now.
    if (key === 'ram' || key === 'used') state.machine.ramUnit = state.units;
    remember();
    onChange({ push: e.type === 'change' });
  };
  box.addEventListener('change', changed);
  box.addEventListener('input', (e) => { if (e.target.type === 'number') changed(e); });
  // The GB / GiB switch: the RAM box follows it, as the custom GPU's memory does. On the radios themselves, so
  // the state is changed before "Your GPUs" (listening on its section) asks the core again.
  for (const id of ['units-gb', 'units-gib']) {
    $(id).addEventListener('change', (e) => {
      if (!e.target.checked) return;
      state.machine.ramUnit = e.target.value === 'gib' ? 'gib' : 'gb';
      remember();
      showMachine();
    });
  }
  // A unified machine chosen or left: the RAM box hides or shows at once.
  $('gpu').addEventListener('change', (e) => showMachine(e.target.value));
  showMachine();
}

// After each answer: what the core says of the machine, in its words. Under llama.cpp, Ollama and MLX
// (`local`): the RAM and how fast it reads, or on a unified machine the GPU's share of the one memory and
// where that share comes from (the sysctl that raises a Mac's).
export function renderMachine(result) {
  showMachine();
  const local = result?.local;
  const note = $('machine-source');
  if (!local?.applies) {
    note.textContent = state.machine.ram !== '' ? 'The RAM counts when the model runs on your machine: llama.cpp, Ollama or MLX (Run locally).' : '';
    return;
  }
  const m = local.machine;
  if (m.unified) note.textContent = `${m.gpu_text}: ${m.ram_text}; the GPU may use ${local.gpu.have_text} of it (${m.share_source}).`;
  else if (m.cpu_only) note.textContent = `No GPU: ${m.ram_text}; RAM bandwidth ${m.bandwidth_source}.`;
  else note.textContent = `${m.ram_text}: RAM bandwidth ${m.bandwidth_source}.`;
}
