// Loads the C++ core (WebAssembly) once and talks JSON with it. Shared by the
// page (app.js) and the <vram-calc> widget (widget.js). No arithmetic here:
// every number comes back from the core.
import { coreApi } from './core-api.mjs';

const base = new URL('./', import.meta.url);
let corePromise = null;
let modelsPromise = null;

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const existing = document.querySelector(`script[data-vramcalc-core]`);
    if (existing && globalThis.createVramcalc) return resolve();
    const s = document.createElement('script');
    s.src = src;
    s.dataset.vramcalcCore = '';
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.appendChild(s);
  });
}

export function loadCore() {
  if (!corePromise) {
    corePromise = loadScript(new URL('vramcalc.js', base).href).then(() =>
      globalThis.createVramcalc({ locateFile: (file) => new URL(file, base).href }));
  }
  return corePromise;
}

// The catalog, summarised (and validated) by the core.
export function loadModels() {
  if (!modelsPromise) {
    modelsPromise = Promise.all([loadCore(), fetch(new URL('models.json', base)).then((r) => {
      if (!r.ok) throw new Error(`models.json: HTTP ${r.status}`);
      return r.text();
    })]).then(([core, text]) => {
      const summary = JSON.parse(core.modelsSummary(text));
      if (!summary.ok) throw new Error(summary.error.message);
      return summary.models;
    });
  }
  return modelsPromise;
}

// A form or attribute value as the core expects it: numbers as numbers,
// flags as booleans, anything else as typed, so the core's validation can
// name the field ("job.batch: must be a number, got \"ten\"").
export function jobValue(raw, defaultValue) {
  if (typeof defaultValue === 'boolean') return raw === true || raw === '' || raw === 'true';
  if (typeof defaultValue === 'number') {
    const text = String(raw).trim();
    return text !== '' && Number.isFinite(Number(text)) ? Number(text) : raw;
  }
  return raw;
}

// One fast caller per page: the page and every widget on it share the core.
let api = null;
export function estimate(core, configText, job) {
  api ??= coreApi(core);
  return api.estimate(configText, job);
}

// The training/inference counterpart shown beside the chosen job: inference
// pairs with full training, or with QLoRA when the weights are quantized.
export function counterpartJob(job, options) {
  if (job.mode !== 'inference') return { ...job, mode: 'inference' };
  const dtype = options.dtypes.find((d) => d.id === job.dtype);
  return { ...job, mode: dtype && !dtype.trainable ? 'qlora' : 'train' };
}

export const modeTitles = {
  inference: 'Inference',
  train: 'Full training',
  lora: 'LoRA fine-tuning',
  qlora: 'QLoRA fine-tuning',
};

// The smallest catalog GPU that holds the job as configured, else the
// fewest of the largest-memory kind (both computed by the core).
export function fitSummary(result) {
  const alone = result.fits.find((f) => f.fits_as_configured);
  if (alone) return `fits ${result.layout.gpus} × ${alone.name}`;
  const sharded = result.fits.filter((f) => f.gpus_needed > 0);
  if (!sharded.length) return 'does not fit any GPU at this batch and sequence length';
  const best = sharded[sharded.length - 1];
  return `needs ${best.gpus_needed} × ${best.name}`;
}

export async function fetchHubConfig(id) {
  const trimmed = id.trim();
  if (!/^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/.test(trimmed)) {
    throw new Error(`Hugging Face id: '${trimmed}' is not a model id like Qwen/Qwen2.5-7B`);
  }
  if (typeof navigator !== 'undefined' && navigator.onLine === false) {
    throw new Error('Hugging Face id: you are offline; paste the config.json instead');
  }
  let response;
  try {
    response = await fetch(`https://huggingface.co/${trimmed}/resolve/main/config.json`);
  } catch (e) {
    throw new Error(`Hugging Face id: could not reach huggingface.co (offline or blocked); paste the config.json instead`);
  }
  if (response.status === 401 || response.status === 403) {
    throw new Error(`Hugging Face id: ${trimmed} is gated or private; paste its config.json instead`);
  }
  if (response.status === 404) throw new Error(`Hugging Face id: no model ${trimmed} on the Hub`);
  if (!response.ok) throw new Error(`Hugging Face id: the Hub answered HTTP ${response.status}`);
  return response.text();
}
