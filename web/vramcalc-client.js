// Loads the C++ core (WebAssembly) once and talks JSON with it. Shared by the
// page (app.js) and the <vram-calc> widget (widget.js). No arithmetic here:
// every number comes back from the core.
import { coreApi } from './core-api.mjs';

const base = new URL('./', import.meta.url);
let corePromise = null;
let modelsPromise = null;
let api = null;
let broken = false;
let keptCheckpoint = null;  // the attached checkpoint, for an instance that replaces a trapped one

function loadScript(src) {
  return new Promise((resolve, reject) => {
    if (globalThis.createVramcalc) return resolve();
    const s = document.createElement('script');
    s.src = src;
    s.dataset.vramcalcCore = '';
    s.addEventListener('load', () => resolve());
    s.addEventListener('error', () => reject(new Error(`could not load ${src}`)));
    document.head.appendChild(s);
  });
}

// A fresh core instance: at start, and again after the old one trapped
// (a trap can leave its memory in any state, so it is never reused).
export function loadCore() {
  if (!corePromise) {
    corePromise = loadScript(new URL('vramcalc.js', base).href)
      .then(() => globalThis.createVramcalc({ locateFile: (file) => new URL(file, base).href }))
      .then((core) => {
        // A new instance after a trap keeps the attached checkpoint.
        api = coreApi(core, keptCheckpoint);
        broken = false;
        return core;
      });
  }
  return corePromise;
}

// True after a trap: await loadCore() before the next call.
export const coreBroken = () => broken;

// Runs a core call; a JavaScript exception out of wasm (stack overflow,
// out of bounds) becomes an error answer and retires the instance.
function call(field, body) {
  if (broken || !api) return { ok: false, error: { field: 'internal', message: 'internal: the calculator is restarting; try again' } };
  try {
    return body(api);
  } catch (e) {
    broken = true;
    corePromise = null;
    keptCheckpoint = api.checkpoint();
    api = null;
    return { ok: false, error: { field, message: `${field}: the calculator could not handle this input (${e.message || e})` } };
  }
}

// The catalog as the core summarised it at build time (scripts/build.sh runs
// `vramcalc --list --json`): each model's config and parameter counts, so the
// page need not count 100 models again before its first result.
export function loadModels() {
  if (!modelsPromise) {
    modelsPromise = fetch(new URL('models.json', base)).then((r) => {
      if (!r.ok) throw new Error(`models.json: HTTP ${r.status}`);
      return r.json().catch(() => { throw new Error('models.json: not valid JSON'); });
    }).then((summary) => {
      if (!summary?.ok || !Array.isArray(summary.models)) {
        throw new Error(summary?.error?.message ?? 'models.json: not a catalog built by scripts/build.sh (vramcalc --list --json)');
      }
      return summary.models;
    });
  }
  return modelsPromise;
}

// A form, URL or attribute value as the core expects it, read by the core's one value parser
// (core/text/values.hpp; the CLI's flags take the same path): numbers, booleans and text by the
// field's kind (here its default's type). A value that breaks the rule comes back as typed, so the
// core names the field ("job.flash_attention: must be true or false, got \"yes\""); a checkbox's
// boolean passes as is. `presentMeansTrue` adds a bare attribute (<vram-calc flash-attention>)
// meaning true.
export function jobValue(raw, defaultValue, presentMeansTrue = false) {
  if (typeof raw === 'boolean' || !api) return raw;
  const kind = typeof defaultValue === 'boolean' ? 'boolean' : typeof defaultValue === 'number' ? 'number' : 'text';
  const answer = api.valueFromText(String(raw), kind, presentMeansTrue);
  return answer.ok ? answer.value : raw;
}

// Fields given as text ([[name, text], ...]; source 'url' or 'attribute') as the core reads them:
// { ok, job } or { ok, cluster }, or an error naming the field (a field given twice, as kv_dtype
// and kv-dtype, names both spellings).
export function jobFromText(fields, source) {
  return call('job', (a) => a.jobFromText(fields, source));
}
export function clusterFromText(fields, source) {
  return call('cluster', (a) => a.clusterFromText(fields, source));
}

export function estimate(configText, job) {
  return call('config', (a) => a.estimate(configText, job));
}
export function sweep(configText, job, axis, values) {
  return call('config', (a) => a.sweep(configText, job, axis, values));
}
export function matrix(configText, job) {
  return call('config', (a) => a.matrix(configText, job));
}
export function solve(configText, job, question) {
  return call('config', (a) => a.solve(configText, job, question));
}
export function cluster(configText, job, fields) {
  return call('config', (a) => a.cluster(configText, job, fields));
}
// Checkpoint metadata (a safetensors header or index, or a GGUF header, as a
// Uint8Array) for the config's model: the core's answer.
export function attachCheckpoint(configText, bytes) {
  return call('checkpoint', (a) => a.attachCheckpoint(configText, bytes));
}
export function detachCheckpoint() {
  keptCheckpoint = null;
  api?.detachCheckpoint();
}
export function ticks(maxBytes) {
  return call('internal', (a) => a.ticks(maxBytes));
}

// The training/inference counterpart shown beside the chosen job: inference
// pairs with full training, or with QLoRA when the weights are quantized.
// `effective` is the job as the core read it (mode and dtype with presets and
// defaults applied) when `job` holds only the fields the user set. A serving
// engine stays with inference: the core refuses one for training.
export function counterpartJob(job, options, effective = job) {
  const mode = effective.mode ?? options.defaults.mode;
  if (mode !== 'inference') return { ...job, mode: 'inference' };
  const dtype = options.dtypes.find((d) => d.id === (effective.dtype ?? options.defaults.dtype));
  const { engine, ...rest } = job;
  return { ...rest, mode: dtype && !dtype.trainable ? 'qlora' : 'train' };
}

export const modeTitles = {
  inference: 'Inference',
  train: 'Full training',
  lora: 'LoRA fine-tuning',
  qlora: 'QLoRA fine-tuning',
};
export const modeTitle = (mode) => modeTitles[mode] ?? mode;

// The GPU the user named (their own size, else the job's GPU) if any, else the
// smallest catalog GPU that holds the job as configured, else the fewest of
// the largest-memory kind (all computed by the core).
export function fitSummary(result) {
  const chosen = result.fits.find((f) => f.id === 'custom') ?? result.fits.find((f) => f.id === result.job.gpu);
  if (chosen) {
    if (chosen.fits_as_configured) return `fits ${result.layout.gpus} × ${chosen.name}`;
    return chosen.gpus_needed > 0 ? `needs ${chosen.gpus_needed} × ${chosen.name}` : `does not fit ${chosen.name} at any count`;
  }
  const catalog = result.fits.filter((f) => f.id !== 'custom');
  const alone = catalog.find((f) => f.fits_as_configured);
  if (alone) return `fits ${result.layout.gpus} × ${alone.name}`;
  const sharded = catalog.filter((f) => f.gpus_needed > 0);
  if (!sharded.length) return 'does not fit any GPU at this batch and sequence length';
  const best = sharded[sharded.length - 1];
  return `needs ${best.gpus_needed} × ${best.name}`;
}

// "Qwen/Qwen2.5-7B", or any huggingface.co address of the model (its page,
// a file in it, a tree), as the model id; null when it is none of these.
export function hubIdOf(text) {
  let id = text.trim();
  const url = id.match(/^(?:https?:\/\/)?(?:www\.)?(?:huggingface\.co|hf\.co)\/(.*)$/i);
  if (url) {
    id = url[1].replace(/[?#].*$/, '').replace(/\/(?:tree|blob|resolve|raw|commits?|discussions|files)(?:\/.*)?$/, '')
      .replace(/\/+$/, '');
  }
  return /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/.test(id) ? id : null;
}

// Configs fetched from the Hub are kept, so a model seen once works offline.
const savedKey = (id) => `vramcalc-hub:${id}`;
function saveHubConfig(id, text) {
  try {
    if (text.length < 512 * 1024) localStorage.setItem(savedKey(id), text);
  } catch { /* storage full or disabled: the page still works online */ }
}
function savedHubConfig(id) {
  try { return localStorage.getItem(savedKey(id)); } catch { return null; }
}

// The config of the catalog model with this Hub id (any case), or null.
function catalogHubConfig(id, catalogModels) {
  const key = String(id ?? '').toLowerCase();
  const known = catalogModels.find((m) => m.hf_id && m.hf_id.toLowerCase() === key);
  return known ? { id: known.hf_id, text: JSON.stringify(known.config), saved: false, catalog: known.name } : null;
}

// A config for a Hub id without the Hub: the copy kept when it was last fetched,
// else the catalog's; null if neither.
export function hubConfigWithoutHub(id, catalogModels) {
  const kept = savedHubConfig(id);
  return kept !== null ? { id, text: kept, saved: true } : catalogHubConfig(id, catalogModels);
}

// Resolves to { id, text, saved, catalog }: saved, a kept copy used because the Hub was unreachable;
// catalog, the name of the catalog model with this Hub id whose config stands in when the Hub cannot
// answer (offline, or a gated repository such as meta-llama's), with `reason` saying why.
export async function fetchHubConfig(input, catalogModels = []) {
  const id = hubIdOf(input);
  if (!id) throw new Error(`Hugging Face id: '${input.trim()}' is not a model id like Qwen/Qwen2.5-7B or its huggingface.co address`);
  const offline = (reason) => {
    const stored = hubConfigWithoutHub(id, catalogModels);
    if (stored) return { ...stored, reason: reason[0].toUpperCase() + reason.slice(1) };
    throw new Error(`Hugging Face id: ${reason}; paste the config.json instead`);
  };
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return offline('you are offline');
  let response;
  try {
    response = await fetch(`https://huggingface.co/${id}/resolve/main/config.json`);
  } catch {
    return offline('could not reach huggingface.co (offline or blocked)');
  }
  if (response.status === 401 || response.status === 403) {
    const known = catalogHubConfig(id, catalogModels);
    if (known) return { ...known, reason: `${known.id} is gated on the Hub` };
    throw new Error(`Hugging Face id: ${id} is gated or private; paste its config.json instead`);
  }
  if (response.status === 404) throw new Error(`Hugging Face id: no model ${id} on the Hub`);
  if (!response.ok) throw new Error(`Hugging Face id: the Hub answered HTTP ${response.status}`);
  const text = await response.text();
  saveHubConfig(id, text);
  return { id, text, saved: false };
}

// Exact weight bytes from the Hub without downloading weights: the sharded
// checkpoint's model.safetensors.index.json (metadata.total_size), else the
// single model.safetensors file's header by two Range requests (its first 8
// bytes give the JSON header's length N, then bytes 8..8+N-1). Resolves to
// { id, file, bytes } (a Uint8Array for useCheckpoint); errors read like the
// config fetch's.
// Past the core's 8 MB JSON limit a header is never read or fetched: the core names the fault from its length alone.
export const MAX_SAFETENSORS_HEADER = 8_000_000;
export async function fetchHubCheckpoint(input) {
  const id = hubIdOf(input ?? '');
  if (!id) throw new Error(`checkpoint: '${String(input ?? '').trim()}' is not a Hugging Face model id`);
  const instead = 'open the checkpoint file (or its model.safetensors.index.json) instead';
  if (typeof navigator !== 'undefined' && navigator.onLine === false) throw new Error(`checkpoint: you are offline; ${instead}`);
  const get = async (file, range) => {
    let response;
    try {
      response = await fetch(`https://huggingface.co/${id}/resolve/main/${file}`, range ? { headers: { Range: `bytes=${range}` } } : {});
    } catch {
      throw new Error(`checkpoint: could not reach huggingface.co (offline or blocked); ${instead}`);
    }
    if (response.status === 401 || response.status === 403) throw new Error(`checkpoint: ${id} is gated or private; ${instead}`);
    if (response.status === 404) return response;
    if (!response.ok) throw new Error(`checkpoint: the Hub answered HTTP ${response.status} for ${file}`);
    // A server that ignores Range would send the whole file (gigabytes): refuse it.
    if (range && response.status !== 206) throw new Error(`checkpoint: the Hub sent all of ${file} instead of the bytes asked for; ${instead}`);
    return response;
  };
  const index = await get('model.safetensors.index.json');
  if (index.ok) return { id, file: 'model.safetensors.index.json', bytes: new Uint8Array(await index.arrayBuffer()) };
  const head = await get('model.safetensors', '0-7');
  if (head.status === 404) {
    throw new Error(`checkpoint: ${id} has neither model.safetensors.index.json nor model.safetensors on the Hub; ${instead}`);
  }
  const first = new Uint8Array(await head.arrayBuffer());
  if (first.length !== 8) throw new Error(`checkpoint: the Hub sent ${first.length} bytes for model.safetensors' header length`);
  // The header's length (8 bytes, little-endian): the byte range to ask for next, not a figure shown.
  const n = new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true);
  if (n === 0n || n > BigInt(MAX_SAFETENSORS_HEADER)) return { id, file: 'model.safetensors', bytes: first };  // the core names the fault
  const rest = await get('model.safetensors', `8-${7n + n}`);
  // get() passes a 404 through: here it means the file went away between the two requests.
  if (!rest.ok) throw new Error(`checkpoint: the Hub answered HTTP ${rest.status} for model.safetensors' header; ${instead}`);
  const header = new Uint8Array(await rest.arrayBuffer());
  const bytes = new Uint8Array(8 + header.length);
  bytes.set(first);
  bytes.set(header, 8);
  return { id, file: 'model.safetensors', bytes };
}
