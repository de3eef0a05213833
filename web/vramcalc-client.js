// The page's and the widget's calls to the C++ core, which runs in a Web
// Worker (core-client.js, core-worker.js): every call returns a promise of the
// core's JSON answer. Shared helpers for both: the catalog, strict value
// conversion, the counterpart job, titles. No arithmetic here: every number
// comes back from the core.
import { coreClient, CANCELLED, trustedScriptURL } from './core-client.js';
import { counterpartJob, forMode } from './core-api.mjs';

export { CANCELLED, trustedScriptURL, counterpartJob, forMode };
const base = new URL('./', import.meta.url);
let client = null;
const core = () => (client ??= coreClient(base));
let modelsPromise = null;

// Starts the core (once per document) and resolves to the core's { options,
// gpus, hardware }; rejects with a reason in plain words when it cannot start.
export const loadCore = () => core().ready();
// Listens to the core's status: { kind: 'slow' | 'done' | 'restarted' | 'stopped', message }.
export const onCoreStatus = (fn) => core().onStatus(fn);
// Calls made per core method (tests count one sweep per chart).
export const coreCalls = () => core().counts();

// The largest JSON text the core reads (core/text/json_text.cpp, docs/hostile-input.md): larger
// configs, pastes and Hub answers are refused before any work, with the core's own words.
export const MAX_JSON_TEXT = 8_000_000;
export const tooLargeMessage = (field, what = '', bytes = 0) =>
  `${field}: ${what ? `${what} is ` : ''}larger than 8 MB (the limit for a JSON input is ${MAX_JSON_TEXT} bytes${bytes ? `; it has ${bytes}` : ''})`;

// The catalog as the core summarised it at build time (scripts/build.sh runs
// `vramcalc --list --json`): each model's config and parameter counts, so the
// page need not count 100 models again before its first result.
export function loadModels() {
  if (!modelsPromise) {
    modelsPromise = fetch(new URL('models.json', base)).then((r) => {
      if (!r.ok) throw new Error(`models.json: HTTP ${r.status}`);
      return r.json().catch(() => { throw new Error('models.json: not valid JSON'); });
    }, (e) => {
      throw new Error(`models.json: could not be fetched from ${base.origin} (offline, or that server does not allow this page to read it) (${e.message})`);
    }).then((summary) => {
      if (!summary?.ok || !Array.isArray(summary.models)) {
        throw new Error(summary?.error?.message ?? 'models.json: not a catalog built by scripts/build.sh (vramcalc --list --json)');
      }
      return summary.models;
    });
  }
  return modelsPromise;
}
// The catalog (loadModels' list, as web/models.json holds it: configs, parameter counts, family, licence, kind) as
// the core reads it for search, lookup and "What can I run?": written once per list, and read by the core only when
// it changes (core-api.mjs useCatalog), so the models the list prepared (1-3 s in wasm) stay prepared. One text for
// every call: a second, smaller one for search would make the core swap catalogs and prepare them again.
let catalog = { models: null, text: null };
function catalogText(models) {
  if (catalog.models !== models) catalog = { models, text: JSON.stringify({ ok: true, models }) };
  return catalog.text;
}
// A job with a field that names a model by id (issue 36): the core resolves it in the catalog, handed to the
// worker first (it keeps it); such a job's totals are not asked of the page's own thread (estimatePairNow).
// (A job, or a question whose `job` it is.)
const namesModels = (job) => job?.machine_jobs !== undefined || (typeof job?.speculative_model === 'string' && job.speculative_model !== '') ||
  (job?.job !== undefined && namesModels(job.job));
async function catalogFirst(job, opts) {
  if (!namesModels(job)) return null;
  const models = await loadModels().catch(() => null);
  if (!models) return null;  // the core then says the id needs the catalog
  const used = await core().call('useModels', [catalogText(models)], { field: 'model', ...opts });
  return used?.ok ? null : used;
}
// The catalog model `id` names (an id, alias or Hub id), or the core's "unknown model 'x'; did you mean …".
export const lookupModel = (models, id, opts) => core().call('lookupModel', [catalogText(models), id], { field: 'model', ...opts });

// A form, URL or attribute value as the core expects it: as typed. Text goes to the core, whose one
// value parser (core/text/values.hpp, the CLI's too) reads each job field's text by the field's kind
// (core-api.mjs, in the worker): numbers and booleans become values, and a value that breaks the rule
// stays text, so the core names the field ("job.flash_attention: must be true or false, got \"yes\"").
// A checkbox's boolean passes as is. The page keeps no number or boolean rules of its own.
export function jobValue(raw) {
  return raw;
}

// Fields given as text ([[name, text], ...]; source 'url' or 'attribute') as the core reads them:
// { ok, job } or { ok, cluster }, or an error naming the field (a field given twice, as kv_dtype
// and kv-dtype, names both spellings).
export const jobFromText = (fields, source, opts) => core().call('jobFromText', [fields, source], { field: 'job', ...opts });
export const clusterFromText = (fields, source, opts) =>
  core().call('clusterFromText', [fields, source], { field: 'cluster', ...opts });

// Input text as the core quotes it in its own errors: at most 60 characters, then "…" and the size in bytes
// ("xxxx… (400000 bytes)"), control and bidirectional characters escaped (U+202E as \u202e). Every message the
// page or the widget writes with input in it quotes it so: laying out a 400,000-character message froze the page
// for 48 s (issue 37 H1). Resolves to a string; "…" alone if the core could not answer.
export async function quoted(text, opts) {
  const answer = await core().call('quoteText', [String(text ?? '')], { field: 'internal', ...opts });
  return typeof answer === 'string' ? answer : '…';
}

// The core's answers. opts: { signal } (an AbortSignal: a call a newer input
// made useless answers CANCELLED, which callers drop).
export const estimate = async (configText, job, opts) => (await catalogFirst(job, opts)) ?? core().call('estimate', [configText, job], opts);
// The job's estimate and its counterpart's (counterpartJob) in one call: { result, other }.
export const estimatePair = async (configText, job, opts) => {
  const refused = await catalogFirst(job, opts);
  return refused ? (refused.cancelled ? refused : { result: refused, other: null }) : core().call('estimatePair', [configText, job], opts);
};
// The same on the page's own thread, in the caller's task, or undefined (the core not here yet, a large or
// slow config, a checkpoint attached): then estimatePair. startLocalCore starts it (the page, after its first answer).
export const estimatePairNow = (configText, job) => (namesModels(job) ? undefined : core().now('estimatePair', [configText, job]));
export const startLocalCore = () => core().startLocal();
// The one answer (docs/answer.md) to one question: { model_name, machine, intent, job, fp8, cluster, parts }.
// A question whose job names a model by id (issue 36) hands the worker the catalog first.
export const answer = async (configText, question, opts) => (await catalogFirst(question, opts)) ?? core().call('answer', [configText, question], opts);
// The same on the page's own thread (the head's parts, for a small job), or undefined: then answer.
export const answerNow = (configText, question) => (namesModels(question) ? undefined : core().now('answer', [configText, question]));
export const sweep = (configText, job, axis, values, opts) => core().call('sweep', [configText, job, axis, values], opts);
export const matrix = (configText, job, opts) => core().call('matrix', [configText, job], opts);
export const solve = (configText, job, question, opts) => core().call('solve', [configText, job, question], opts);
export const cluster = (configText, job, fields, opts) => core().call('cluster', [configText, job, fields], opts);
export const chart = (configText, job, axis, opts) => core().call('chart', [configText, job, axis], opts);
export const searchModels = (models, query, opts) => core().call('searchModels', [catalogText(models), query], { field: 'search', ...opts });
// "What can I run?" (docs/what-fits.md): every catalog model on the request's machine ({ intent, job, filters, sort,
// configs }). The first list after the catalog is given prepares every model (1-3 s in wasm): the call is patient
// (core-client.js: no "still computing" note, no restart before its own limit). The answer comes as its JSON text.
export const whatFits = (models, request, opts) =>
  core().call('whatFits', [catalogText(models), request], { field: 'what_fits', patient: true, ...opts })
    .then((answer) => (typeof answer === 'string' ? JSON.parse(answer) : answer));
export const ladder = (configText, job, opts) => core().call('ladder', [configText, job], opts);
export const intents = (opts) => core().call('intents', [], { ...opts, field: 'internal' });
export const gpusIn = (units, opts) => core().call('gpusIn', [units], { ...opts, field: 'job.units' });
// Checkpoint metadata (a safetensors header or index, or a GGUF header, as a
// Uint8Array) for the config's model: the core's answer. It stays attached
// (also in a worker that replaces a trapped one) until detached.
export const attachCheckpoint = (configText, bytes) => core().call('attachCheckpoint', [configText, bytes], { field: 'checkpoint' });
export const detachCheckpoint = () => core().detachCheckpoint();

export const modeTitles = {
  inference: 'Inference',
  train: 'Full training',
  lora: 'LoRA fine-tuning',
  qlora: 'QLoRA fine-tuning',
  // Post-training (issue 36): the algorithm's own name.
  dpo: 'DPO post-training',
  kto: 'KTO post-training',
  orpo: 'ORPO post-training',
  grpo: 'GRPO post-training (RL)',
  ppo: 'PPO post-training (RL)',
  rloo: 'RLOO post-training (RL)',
};
export const modeTitle = (mode) => modeTitles[mode] ?? mode;

