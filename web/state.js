// The page's one state object and its URL form (a URLSearchParams, carried
// in the URL fragment by link.js). Panels read and write `state`; app.js turns
// it into core calls.
import { base64urlToBytes } from './link.js';
import { freshWhatFits, whatFitsParams } from './what-fits-link.js';
export const state = {
  // Where the model comes from: the catalog, a pasted config, or the Hub.
  source: { kind: 'catalog', modelId: 'llama-3-8b', pasted: '', hubId: '', hubText: '', hubSaved: false },
  // Job values from the URL that no form control can hold (a checkbox given
  // "yes"): sent to the core as typed until the control is touched, so the
  // error names the field instead of silently meaning false.
  rawOverrides: {},
  // Job fields the user set (URL or control): the only ones sent to the core,
  // so presets and defaults fill the rest as they do for the CLI.
  touched: new Set(),
  // "Your GPUs" (issue 23): the one GPU choice that drives the verdict, the
  // GPU table's and matrix's colours, the chart's capacity line and the cluster
  // planner. gpu: a catalog id ('' = none chosen yet); count: how many;
  // customGb: a custom memory size as typed (used when gpu is 'custom'). The RAM beside it is `machine`.
  // Remembered between visits in localStorage under 'vramcalc.yourGpus'.
  yourGpus: { gpu: '', count: '1', customGb: '' },
  units: 'gb',         // 'gb' (10^9 B, the default) or 'gib' (nvidia-smi, PyTorch): passed to the core
  // The entry point chosen (the core's intents: run_locally, serve, fine_tune, pretrain; '' none): sent to the
  // core with the job, which applies its recipe for the model under the fields the user set (issue 33).
  intent: '',
  fp8: '',             // FP8 training recipe (the core's options().fp8_recipes; '' none)
  // Your machine's RAM beside "Your GPUs" (issue 32; panels/your-machine.js), as typed: its size in ramUnit
  // (the unit it was typed in), what other programs use, its kind, channels, MT/s or a measured bandwidth.
  // Remembered between visits in localStorage under 'vramcalc.yourMachine'.
  machine: { ram: '', ramUnit: 'gb', used: '', kind: '', channels: '', mts: '', bandwidth: '' },
  compare: [],         // saved setups, each a query string (a pasted config as `config`)
  cluster: {},         // cluster planner fields the user set (gpu, gpus, fabric, tokens, price_per_gpu_hour, concurrency)
  machineJobs: '',     // the other models on the GPU (job field machine_jobs), as JSON text (panels/colocation.js)
  whatFits: freshWhatFits(),  // "What can I run?" (issue 35): the view, intent, order, context, runtime, filters (what-fits-link.js)
  result: null,        // last good estimate and its counterpart
  other: null,
};

// A pasted config in a state: `config` holds its text (inside the compressed
// fragment, link.js); older links had it base64url-encoded in `cfg`. Returns
// the text, null when the state has none, undefined when `cfg` is not valid.
export function pastedConfigOf(q) {
  if (q.has('config')) return q.get('config');
  if (!q.has('cfg')) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(base64urlToBytes(q.get('cfg')));
  } catch {
    return undefined;
  }
}

// Your GPUs as the core's job fields (values as typed: the core reads them and names a bad one): the
// catalog GPU, or the custom size as device_gb / device_gib in the unit it was typed in; the count; the units.
// The URL holds them under the same names.
export function yourJobFields(yours = state.yourGpus, units = state.units) {
  const job = {};
  if (yours.gpu === 'custom') {
    if (yours.customGb !== '') job[units === 'gib' ? 'device_gib' : 'device_gb'] = yours.customGb;
  } else if (yours.gpu) {
    job.gpu = yours.gpu;
  }
  if (yours.count !== '1') job.gpus = yours.count;
  if (units !== 'gb') job.units = units;
  return job;
}

// The machine's job fields (docs/machine.md), values as typed (the core reads them and names a bad one): the RAM
// and the RAM in use as ram_gb / ram_gib and ram_used_gb / ram_used_gib in the unit typed, ram_kind, ram_channels,
// ram_mts, ram_bandwidth_gbs. The URL holds them under the same names.
export const MACHINE_FIELDS = ['ram_gb', 'ram_gib', 'ram_used_gb', 'ram_used_gib', 'ram_kind', 'ram_channels', 'ram_mts',
  'ram_bandwidth_gbs'];
export function machineJobFields(machine = state.machine) {
  const job = {};
  const gib = machine.ramUnit === 'gib';
  if (machine.ram !== '') job[gib ? 'ram_gib' : 'ram_gb'] = machine.ram;
  if (machine.used !== '') job[gib ? 'ram_used_gib' : 'ram_used_gb'] = machine.used;
  if (machine.kind !== '') job.ram_kind = machine.kind;
  if (machine.channels !== '') job.ram_channels = machine.channels;
  if (machine.mts !== '') job.ram_mts = machine.mts;
  if (machine.bandwidth !== '') job.ram_bandwidth_gbs = machine.bandwidth;
  return job;
}

// Your machine as the question's machine (api/question.hpp): the GPU or its memory, the count, and the RAM's
// fields (machineJobFields), as typed.
export function yourMachine(yours = state.yourGpus, units = state.units, machine = state.machine) {
  const { units: _units, ...gpus } = yourJobFields(yours, units);
  return { ...gpus, ...machineJobFields(machine) };
}

// The one question the page asks the core (docs/answer.md): the model's name, your machine, the intent,
// the job fields the user set (units among them), the FP8 recipe and the planner's fields.
export function questionFor({ job, name = '', yours = state.yourGpus, units = state.units, machine = state.machine, intent = state.intent,
  fp8 = state.fp8, cluster = state.cluster, parts } = {}) {
  const q = { model_name: name.slice(0, 200), machine: yourMachine(yours, units, machine), job: { ...job } };
  if (units !== 'gb') q.job.units = units;
  if (intent) q.intent = intent;
  if (fp8) q.fp8 = fp8;
  const planner = { ...cluster };
  delete planner.gpu;
  delete planner.gpus;
  q.cluster = planner;
  if (parts) q.parts = parts;
  return q;
}

function withoutConfig(setup) {
  const q = new URLSearchParams(setup);
  if (q.has('config')) q.set('config', '');
  return q.toString();
}

// The URL query for the state: the model source, the job fields the user set,
// your GPUs (gpu, gpus, device_gb / device_gib, units), your machine's RAM (machineJobFields), the chart line and the comparison list.
// withConfig false: the pasted config left out (config= empty: the Paste tab opens empty), for a link too large to share.
export function stateQuery(job, { withConfig = true } = {}) {
  const q = new URLSearchParams();
  const s = state.source;
  if (s.kind === 'catalog') q.set('model', s.modelId);
  if (s.kind === 'hub') q.set('hf', s.hubId);
  if (s.kind === 'paste') q.set('config', withConfig ? s.pasted : '');
  for (const [key, value] of Object.entries(job)) q.set(key, String(value));
  for (const [key, value] of Object.entries(yourJobFields())) q.set(key, String(value));
  if (state.intent) q.set('intent', state.intent);
  if (state.fp8) q.set('fp8_recipe', state.fp8);
  for (const [key, value] of Object.entries(machineJobFields())) q.set(key, String(value));
  // "Another GPU" before its size is typed is no job field, but the link keeps the choice (issue 37 L7).
  if (state.yourGpus.gpu === 'custom' && !q.has('device_gb') && !q.has('device_gib')) q.set('gpu', 'custom');
  for (const c of state.compare) q.append('cmp', withConfig ? c : withoutConfig(c));
  for (const [key, value] of Object.entries(state.cluster)) q.set(`cl_${key}`, value);
  for (const [key, value] of whatFitsParams(state.whatFits)) q.set(key, value);
  return q;
}
