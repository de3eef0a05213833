// The job form: option lists from the core's options(), one control per job
// field (fields the page has no hand-made control for get a generic one), the
// conversion to the job the core reads, and errors shown under their field.
import { jobValue, modeTitle, forMode } from '../vramcalc-client.js';
import { state, yourJobFields, machineJobFields, MACHINE_FIELDS } from '../state.js';

const $ = (id) => document.getElementById(id);
const optimizerTitles = { adamw: 'AdamW (fp32 m + v)', adam_8bit: '8-bit Adam', adafactor: 'Adafactor', sgd_momentum: 'SGD + momentum', sgd: 'SGD' };
const checkpointingTitles = { none: 'None', selective: 'Selective (attention)', full: 'Full',
  selective_op: 'Per-op selective (torchtitan)' };
// Names for the core's option ids (the lists themselves come from options()).
const titles = {
  framework: { custom: 'None (plain PyTorch)', hf: 'Hugging Face Trainer + PEFT', accelerate_fsdp: 'Accelerate FSDP', torchtune: 'torchtune',
    deepspeed: 'DeepSpeed ZeRO', megatron: 'Megatron-LM', unsloth: 'Unsloth', torchtitan: 'torchtitan', nemo: 'NeMo',
    trl: 'TRL', verl: 'verl', openrlhf: 'OpenRLHF' },
  model_init: { none: 'Not modelled', 'torchao_0.1_nf4': 'torchtune 0.1 QLoRA (torchao 0.1 NF4, replayed)' },
  qlora_matmul: { bitsandbytes: 'bitsandbytes (keeps each layer input)', torchao: 'torchao linear_nf4 (torchtune)' },
  engine: { custom: 'None (plain sum)', hf: 'transformers generate', vllm: 'vLLM', sglang: 'SGLang', llamacpp: 'llama.cpp', ollama: 'Ollama' },
  precision: { master: '16-bit + fp32 master copy', pure: 'Pure 16-bit', autocast: 'fp32 weights, 16-bit autocast' },
  loss: { full: 'Full logits, fp32 inside the loss', full_fp32: 'fp32 logits kept through backward', chunked: 'Chunked (torchtune)',
    fused: 'Fused linear + cross-entropy' },
  report: { device: 'Device (nvidia-smi)', reserved: 'Reserved (max_memory_reserved)', allocated: 'Allocated (max_memory_allocated)' },
  attention: { flash: 'FlashAttention 2', sdpa: 'SDPA (PyTorch)', eager: 'Eager' },
  policy: { full: 'Full (every weight)', lora: 'LoRA', qlora: 'QLoRA (4-bit base)' },
  vllm_mode: { colocate: 'Colocated on the training GPUs', server: 'A server on GPUs of its own' },
  speculative_method: { none: 'None', draft: 'Draft model', eagle: 'EAGLE heads', eagle3: 'EAGLE-3 heads', mtp: 'MTP layers (the model\'s own)',
    ngram: 'n-gram prompt lookup (no memory)' },
};
const listOf = (key, list) => list.map((v) => [v, titles[key]?.[v] ?? v]);
import { yourControl } from './your-gpus.js';
// Fields set by "Your GPUs" at the top (panels/your-gpus.js, your-machine.js: the RAM), not by the job form.
const YOURS = new Set(['gpu', 'gpus', 'device_gb', 'device_gib', 'units', ...MACHINE_FIELDS]);
// Two fields for one setting: touching one lets the other go back to what the core infers.
const sameSetting = { attention: 'flash_attention', flash_attention: 'attention' };

let options;
let defaults;
let fieldIds = [];

function fillSelect(select, items) {
  const keep = select.value;
  select.replaceChildren(...items.map(([value, label]) => new Option(label, value)));
  if (items.some(([value]) => value === keep)) select.value = keep;
}

// A readable label for a field the page does not know yet ("optimizer_dtype" -> "Optimizer dtype").
// Generated controls: a label in words for the fields the page knows by name, else the field's name.
const fieldLabels = {
  cp: 'Context parallel (CP)', ep: 'Expert parallel (EP)', gguf_rules: 'GGUF type rules (llama.cpp version)',
  qlora_matmul: 'QLoRA matmul', fp32_gradients: 'fp32 gradients', comm_buffers_gb: 'Communication buffers (GB)',
  overhead_gb: 'CUDA context and framework (GB)', dp_attention: 'Data-parallel attention', kv_dtype: 'KV cache format',
  lora_dropout: 'LoRA dropout', max_model_len: 'Max model length (tokens)', max_num_seqs: 'Max sequences (vLLM)',
  max_num_batched_tokens: 'Max batched tokens', n_gpu_layers: 'GPU layers (-ngl)', n_ubatch: 'Micro-batch (n_ubatch)',
};
const fieldLabel = (key) => fieldLabels[key] ?? key.charAt(0).toUpperCase() + key.slice(1).replaceAll('_', ' ');

// The list options() offers for a field, by the field's name or its plural.
function listFor(key) {
  const list = options[key] ?? options[`${key}s`] ?? options[`${key}es`];
  return Array.isArray(list)
    ? list.map((v) => (typeof v === 'object' ? [v.id, v.label ?? v.id] : [String(v), titles[key]?.[v] ?? String(v)])) : null;
}

function genericControl(key) {
  const wrap = document.createElement('div');
  wrap.className = 'field';
  const value = defaults[key];
  const list = listFor(key);
  let input;
  if (typeof value === 'boolean') {
    const label = document.createElement('label');
    label.className = 'check';
    input = Object.assign(document.createElement('input'), { type: 'checkbox', id: key, name: key });
    label.append(input, ` ${fieldLabel(key)}`);
    wrap.append(label);
    return wrap;
  }
  const label = Object.assign(document.createElement('label'), { htmlFor: key, textContent: fieldLabel(key) });
  if (list) {
    input = Object.assign(document.createElement('select'), { id: key, name: key });
    fillSelect(input, list);
  } else {
    input = Object.assign(document.createElement('input'), { id: key, name: key, type: typeof value === 'number' ? 'number' : 'text' });
    if (typeof value === 'number') input.step = 'any';
  }
  wrap.append(label, input);
  return wrap;
}

export function initJob(coreOptions) {
  options = coreOptions;
  defaults = options.defaults;
  // The post-training modes (issue 36) after the four others.
  fillSelect($('mode'), [...options.modes, ...(options.post_modes ?? [])].map((m) => [m, modeTitle(m)]));
  fillSelect($('dtype'), options.dtypes.map((d) => [d.id, d.auto ? d.label : `${d.label} (${d.bits} bits)`]));
  fillSelect($('kv_dtype'), options.kv_dtypes.map((k) => [k, k === 'auto' ? 'same as compute' : k]));
  fillSelect($('optimizer'), options.optimizers.map((o) => [o, optimizerTitles[o] ?? o]));
  fillSelect($('checkpointing'), options.checkpointing.map((c) => [c, checkpointingTitles[c] ?? c]));
  fillSelect($('adapter_dtype'), options.dtypes.filter((d) => d.trainable && !d.auto).map((d) => [d.id, d.id]));
  fillSelect($('optimizer_dtype'), options.dtypes.filter((d) => d.trainable && !d.auto).map((d) => [d.id, d.id]));
  fillSelect($('framework'), listOf('framework', options.frameworks));
  fillSelect($('engine'), listOf('engine', options.engines));
  for (const key of ['precision', 'loss', 'report', 'attention']) fillSelect($(key), listOf(key, options[key]));
  // FP8 training as one choice: the planner's recipes and the memory each implies (the core's list).
  fillSelect($('fp8_recipe'), [['', 'None (BF16)'], ...(options.fp8_recipes ?? []).map((r) => [r.id, r.label])]);
  // Issue 36: the policy of a post-training mode, vLLM's rollout mode, the speculative method.
  for (const [key, list] of [['policy', options.policies], ['vllm_mode', options.vllm_modes], ['speculative_method', options.speculative_methods]]) {
    if ($(key) && list) fillSelect($(key), listOf(key, list));
  }
  // Fields the core added that this page has no control for yet.
  const more = $('more-fields');
  for (const key of Object.keys(defaults)) {
    if (!$(key) && !YOURS.has(key)) more.append(genericControl(key));
  }
  $('more-box').hidden = !more.children.length;
  // Controls for fields the core no longer reads are hidden, never silently ignored.
  for (const control of document.querySelectorAll('#controls [name]')) {
    if (control.name in defaults) continue;
    const label = control.closest('label') ?? document.querySelector(`label[for="${control.id}"]`);
    label?.remove();
    control.remove();
  }
  fieldIds = Object.keys(defaults).filter((k) => $(k) && !YOURS.has(k));
  return fieldIds;
}

export function setField(key, value) {
  const input = $(key);
  delete state.rawOverrides[key];
  if (input.type === 'checkbox') {
    const flag = jobValue(value, defaults[key]);
    if (typeof flag === 'boolean') input.checked = flag;
    else state.rawOverrides[key] = value;  // not true/false: the core will say so, under this field
  } else {
    input.value = String(value);
    // A value the control cannot hold (a select without that option, letters in a number box) is kept
    // as given, so the core names it in its error ("got 'bogus'") instead of seeing an empty field.
    if (input.value !== String(value)) state.rawOverrides[key] = value;
  }
}

// The job: only the fields the user set (from the URL or a control), so the
// core's defaults and the chosen framework's / engine's presets fill the rest,
// exactly as for the CLI given the same fields. For the core (forCore): your
// GPUs (gpu or device_gb / device_gib, gpus, units), your machine's RAM, and no serving engine on a training job.
export function readJob({ forCore = false } = {}) {
  const job = {};
  for (const key of fieldIds) {
    if (key in state.rawOverrides) { job[key] = state.rawOverrides[key]; continue; }
    if (!state.touched.has(key)) continue;
    const input = $(key);
    const value = jobValue(input.type === 'checkbox' ? input.checked : input.value, defaults[key]);
    if (value !== '' || defaults[key] !== '') job[key] = value;  // '' = "not set" (gpu)
  }
  // The models sharing the GPU (panels/colocation.js): JSON text, as the link carries it.
  if (state.machineJobs) job.machine_jobs = state.machineJobs;
  if (!forCore) return job;
  Object.assign(job, yourJobFields(), machineJobFields());
  return coreJob(job);
}

// The job as the core is asked it: no serving engine on a training job, no field its mode refuses
// (options().field_modes: a field set for another mode stays in the state and the link).
// The mode each intent's recipe sets (the core's intents().job.mode; panels/intents.js hands them over).
const intentModes = new Map();
export function setIntentModes(entries) {
  for (const [id, mode] of entries) intentModes.set(id, mode);
}
// The mode the job is read in: the form's, else the question's intent's (a post-training field the user sets
// under Post-train is sent though the form sets no mode), else the core's default.
function modeOf(job) {
  return job.mode ?? intentModes.get(state.intent) ?? defaults.mode;
}
export function coreJob(job) {
  const mode = modeOf(job);
  if (mode !== 'inference') delete job.engine;
  const kept = forMode({ ...job, mode }, options);
  if (!('mode' in job)) delete kept.mode;  // the mode stays the intent's (or the core's default), not the form's
  return kept;
}

// Touching a control: the user's value from now on, replacing whatever the URL said.
export function touch(key) {
  if (!fieldIds.includes(key)) return;
  delete state.rawOverrides[key];
  state.touched.add(key);
  if (sameSetting[key]) state.touched.delete(sameSetting[key]);
}

// Controls the user has not set show what the core used (its defaults, or the
// framework's / engine's preset), from the answer's job.
// weightFormat: the core's name for the weights it counted ("NF4 (bitsandbytes,
// double-quant)" for QLoRA), shown in the Auto choice so the menu says what is computed.
let autoLabel = null;  // the core's own label for the Auto choice
export function showEffective(job, weightFormat) {
  const auto = $('dtype').querySelector('option[value=auto]');
  if (auto) {
    const label = job.dtype === 'auto' ? `Auto: ${weightFormat}`
      : autoLabel ?? auto.textContent;
    autoLabel ??= auto.textContent;
    if (auto.textContent !== label) auto.textContent = label;
  }
  for (const key of fieldIds) {
    if (state.touched.has(key) || key in state.rawOverrides || !(key in job)) continue;
    const input = $(key);
    if (input.type === 'checkbox') { if (input.checked !== (job[key] === true)) input.checked = job[key] === true; }
    else if (input.value !== String(job[key])) input.value = String(job[key]);
  }
  showEngineFields(job.engine);
}

let engineShown = null;
export function showEngineFields(engine) {
  if (engine === engineShown) return;
  engineShown = engine;
  for (const el of document.querySelectorAll('[data-engine]')) el.hidden = !el.dataset.engine.split(' ').includes(engine);
}

// A post-training mode shows its own fields and its policy's (full: the training fields; lora, qlora: theirs too);
// data-hide lists the modes a part is hidden in.
const policyMode = { full: 'train', lora: 'lora', qlora: 'qlora' };
export function showModeFields(mode) {
  const shown = [mode];
  if (options?.post_modes?.includes(mode)) shown.push(policyMode[$('policy')?.value] ?? 'train');
  for (const el of document.querySelectorAll('[data-show]')) el.hidden = !el.dataset.show.split(' ').some((m) => shown.includes(m));
  for (const el of document.querySelectorAll('[data-hide]')) el.hidden = el.dataset.hide.split(' ').includes(mode);
}

// ---------------------------------------------------------------- errors under fields

const errorId = (control) => `${control.id}-error`;

export function clearFieldErrors() {
  for (const control of document.querySelectorAll('[aria-invalid]')) {
    control.removeAttribute('aria-invalid');
    const describedBy = (control.getAttribute('aria-describedby') || '').split(' ').filter((id) => id && id !== errorId(control));
    if (describedBy.length) control.setAttribute('aria-describedby', describedBy.join(' '));
    else control.removeAttribute('aria-describedby');
  }
  for (const p of document.querySelectorAll('.field-error')) p.remove();
}

// Shows `message` under `control`, tied to it with aria-describedby.
export function showFieldError(control, message) {
  clearFieldErrors();
  if (!control) return;
  const p = Object.assign(document.createElement('p'), { className: 'field-error', id: errorId(control), textContent: message });
  const anchor = control.closest('label.check') ?? control.closest('.row') ?? control;
  anchor.after(p);
  control.setAttribute('aria-invalid', 'true');
  control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), p.id].filter(Boolean).join(' '));
  // Inside a closed <details>: open it so the error is seen.
  const details = control.closest('details');
  if (details) details.open = true;
}

// A core message about a job field, with the field named as its label names it
// ("Sequence length: …" for "job.seq: …"); other messages as they are.
export function labelledMessage(field, message) {
  if (!field?.startsWith('job.') || !message.startsWith(`${field}: `)) return message;
  const key = field.slice(4).split(/[.[]/)[0];
  const label = (yourControl(key) ?? document.getElementById(key))?.labels?.[0]?.textContent.trim();
  return label ? `${label}: ${message.slice(field.length + 2)}` : message;
}
