// The fast way to ask the core, for the page, the widget and the Node tests
// alike (no DOM here). The config crosses into wasm only when it changes,
// and answers come back as bytes decoded natively.
const decoder = new TextDecoder();

// The training/inference counterpart shown beside the chosen job: inference
// pairs with full training, or with QLoRA when the weights are quantized.
// `effective` is the job as the core read it (mode and dtype with presets and
// defaults applied) when `job` holds only the fields the user set. A serving
// engine stays with inference: the core refuses one for training.
// A post-training job's counterpart is the policy served: inference, without the fields inference refuses.
export function counterpartJob(job, options, effective = job) {
  const mode = effective.mode ?? options.defaults.mode;
  if (mode !== 'inference') return forMode({ ...job, mode: 'inference' }, options);
  const dtype = options.dtypes.find((d) => d.id === (effective.dtype ?? options.defaults.dtype));
  const { engine, ...rest } = job;
  return { ...rest, mode: dtype && !dtype.trainable ? 'qlora' : 'train' };
}

// The job without the fields its mode refuses (the core's options().field_modes: post-training fields outside
// the post-training modes, the serving extras outside inference, machine_jobs beside a post-training job), as a
// CLI user would not give them: a field set for another mode stays in the page's state and link, not in the job.
export function forMode(job, options) {
  const mode = job.mode ?? options.defaults.mode;
  const out = { ...job };
  for (const [key, modes] of Object.entries(options.field_modes ?? {})) if (key in out && !modes.includes(mode)) delete out[key];
  return out;
}

// Checkpoint metadata (useCheckpoint) belongs to one config: useConfig drops
// it, so when that config is chosen again (after another panel asked about
// another model) its checkpoint is attached again.
// Job and cluster fields from the page and the widget hold text as typed (a URL, a form, an attribute): the
// core's one value parser (core/api/job_text.hpp; the CLI's flags take it too) reads each text by its field's
// kind before the core sees the job. Values that are not text pass as they are.
function readText(core, method, key, fields) {
  const texts = Object.entries(fields ?? {}).filter(([, value]) => typeof value === 'string');
  if (!texts.length) return fields;
  const read = JSON.parse(core[method](JSON.stringify(texts), 'url'));
  return read.ok ? { ...fields, ...read[key] } : fields;
}

// The list's filters that take a number or a flag (core/api/what_fits_json.cpp), read from text by the core's one
// value parser; a text it refuses stays text, so the core names the filter ("filters.min_tps: must be a number").
const FILTER_KINDS = { min_context: 'number', min_tps: 'number', moe: 'boolean', runnable: 'boolean' };
function readFilterTexts(core, filters) {
  const out = { ...filters };
  for (const [key, kind] of Object.entries(FILTER_KINDS)) {
    if (typeof out[key] !== 'string') continue;
    const read = JSON.parse(core.valueFromText(out[key], kind, false));
    if (read.ok) out[key] = read.value;
  }
  return out;
}

// One estimate pair of a toy Llama-style config, its answer discarded: the wasm compiles the functions of
// an estimate on first use (100-280 ms measured on the shared 2-core machine; docs/page.md), so a warm-up
// right after start-up spares the first real answer that cost (core-worker.js, core-local.js).
const WARM_UP = '{"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4, ' +
  '"num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 1024, "max_position_embeddings": 2048}';

// The core (Emscripten's createVramcalc, from vramcalc.js) on the WebAssembly.Module the page compiled once,
// so a worker or the page's own thread starts it in milliseconds; rejects when the wasm fails to start or aborts
// (core-worker.js, core-local.js). base: the folder of the core's files.
export function instantiateCore(createVramcalc, module, base) {
  return new Promise((resolve, reject) => {
    createVramcalc({
      locateFile: (file) => new URL(file, base).href,
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), reject);
        return {};
      },
      onAbort: (what) => reject(new Error(String(what))),
    }).then(resolve, reject);
  });
}

export function coreApi(core, kept = null) {
  const asJob = (job) => readText(core, 'jobFromText', 'job', job);
  const asCluster = (fields) => readText(core, 'clusterFromText', 'cluster', fields);
  let currentConfig = null;
  let currentCatalog = null;
  // Hands the catalog (a models.json text) to the core when it changed since the last call (a replacement
  // worker gets it on its first call): null when in use, else the core's refusal.
  const useCatalog = (catalog) => {
    if (catalog === currentCatalog) return null;
    const used = JSON.parse(core.useCatalog(catalog));
    if (!used.ok) return used;
    currentCatalog = catalog;
    return null;
  };
  let checkpoint = kept;  // { configText, bytes } of the attached checkpoint, or null
  let options = null;  // the core's options(), read once for estimatePair
  const use = (configText) => {
    if (configText !== currentConfig) {
      currentConfig = null;  // a throw below leaves no half-chosen config behind
      core.useConfig(configText);
      // The core keeps the last attached checkpoint's figures: no header is read again.
      if (checkpoint?.configText === configText && !core.reattachCheckpoint()) core.useCheckpoint(checkpoint.bytes);
      currentConfig = configText;
    }
  };
  return {
    // Attaches checkpoint metadata (raw bytes, a Uint8Array) to the config's
    // model: the core's answer. A rejected one leaves the model as it was.
    attachCheckpoint(configText, bytes) {
      use(configText);
      const answer = JSON.parse(core.useCheckpoint(bytes));
      if (answer.ok) checkpoint = { configText, bytes };
      return answer;
    },
    // Detaches it: the next call chooses the config afresh (useConfig).
    detachCheckpoint() {
      checkpoint = null;
      currentConfig = null;
    },
    checkpoint: () => checkpoint,
    warmUp() {
      try {
        this.answer(WARM_UP, { parts: ['head'] });
      } catch { /* a trap here leaves nothing behind that the first real call would see */ }
    },
    // The one answer (docs/answer.md): the question (machine, intent, job, FP8 recipe, planner fields; the
    // parts wanted) in, every part computed from the same machine, job and layout out. Fields given as
    // text are read by the core's one value parser first, as for every call.
    answer(configText, question) {
      use(configText);
      const q = { ...question };
      if (q.job) q.job = asJob(q.job);
      if (q.machine) q.machine = asJob(q.machine);
      if (q.cluster) q.cluster = asCluster(q.cluster);
      return JSON.parse(decoder.decode(core.answer(JSON.stringify(q))));
    },
    estimate(configText, job) {
      use(configText);
      // Decode at once: the view points into wasm memory, which the next call may reuse or grow.
      return JSON.parse(decoder.decode(core.estimateView(JSON.stringify(asJob(job)))));
    },
    // The job and its counterpart (inference beside training) as the page shows them: one call, so a
    // worker answers both in one round trip. `other` is null when the job itself is refused.
    estimatePair(configText, job) {
      const result = this.estimate(configText, job);
      if (!result.ok) return { result, other: null };
      options ??= JSON.parse(core.options());
      return { result, other: this.estimate(configText, counterpartJob(job, options, result.job)) };
    },
    // Per-term bytes for one job field over `values` (one core call): the
    // header's terms and texts, the numbers read straight from wasm memory.
    sweep(configText, job, axis, values) {
      use(configText);
      const view = core.sweepView(JSON.stringify(asJob(job)), axis, JSON.stringify(values));
      const answer = JSON.parse(decoder.decode(view.header));
      if (!answer.ok) return answer;
      const { numbers } = view;
      const width = answer.columns;
      answer.points = answer.total_texts.map((text, i) => ({
        value: numbers[i * width],
        bytes: Array.from(numbers.subarray(i * width + 1, (i + 1) * width - 1)),
        total_bytes: numbers[(i + 1) * width - 1],
        total_text: text,
      }));
      delete answer.total_texts;
      delete answer.columns;
      return answer;
    },
    // Total per GPU for every weight format × mode.
    matrix(configText, job) {
      use(configText);
      return JSON.parse(core.matrix(JSON.stringify(asJob(job))));
    },
    // An inverse answer for the job on its GPU (core/inverse.hpp questions).
    solve(configText, job, question) {
      use(configText);
      return JSON.parse(core.solveCurrent(JSON.stringify(asJob(job)), question));
    },
    // The cluster planner for the job (core/cluster_answer.cpp): throughput, interconnect, time, cost.
    cluster(configText, job, cluster) {
      use(configText);
      return JSON.parse(core.cluster(JSON.stringify(asJob(job)), JSON.stringify(asCluster(cluster))));
    },
    // A chart against sequence length or batch around the job (core/api/chart.hpp): the points, the
    // axes' ranges and marks, the current point and the capacity line, all from the core.
    chart(configText, job, axis) {
      use(configText);
      return JSON.parse(core.chart(JSON.stringify(asJob(job)), axis));
    },
    // The catalog's forgiving search (core/api/catalog.hpp), best first; `catalog` is a models.json
    // text, handed to the core again only when it changes (a replacement worker gets it on its first call).
    searchModels(catalog, query) {
      const refused = useCatalog(catalog);
      if (refused) return refused;
      // `exact`: the model an id, alias or Hub id names exactly (lookupModel), which the page selects.
      const exact = JSON.parse(core.lookupModel(query));
      return { ...JSON.parse(core.searchModels(query)), exact: exact.ok ? exact.id : null };
    },
    // The llama.cpp quant ladder for the job on its GPU (core ladder_current): each rung full / partial -ngl N / too large.
    ladder(configText, job) {
      use(configText);
      return JSON.parse(core.ladder(JSON.stringify(asJob(job))));
    },
    // The page's four entry points (core/job/intents.cpp), each a job preset with its sources.
    intents() {
      return JSON.parse(core.intents());
    },
    // The catalog's GPUs with their usable capacity written in `units` (gb | gib).
    gpusIn(units) {
      return JSON.parse(core.gpusIn(units));
    },
    ticks(maxBytes) {
      return JSON.parse(core.ticks(maxBytes));
    },
    // "What can I run?" (docs/what-fits.md): the whole catalog (a models.json text, handed to the core when it
    // changed; its models prepared once per catalog) on the request's machine for one intent, filtered and sorted by
    // the core. The machine's fields and the filters' numbers and flags given as text (a form, a link, an
    // attribute) are read by the core's one value parser first, as a job's are.
    whatFits(catalog, request) {
      const refused = useCatalog(catalog);
      if (refused) return refused;
      const q = { ...request };
      if (q.job) q.job = asJob(q.job);
      if (q.filters) q.filters = readFilterTexts(core, q.filters);
      // Decoded at once (the view points into wasm memory, which the next call may reuse or grow), and handed over
      // as text: a 350 KB answer crosses to the page as one string, parsed there (vramcalc-client.js), rather than
      // as an object tree copied on both sides.
      return decoder.decode(core.whatFitsView(JSON.stringify(q)));
    },
    // The catalog model an id, alias or Hub id names exactly, or the core's error "model: unknown model 'x';
    // did you mean a, b or c?" (lookupModel, core/api/catalog.hpp): the widget's model attribute.
    lookupModel(catalog, id) {
      return useCatalog(catalog) ?? JSON.parse(core.lookupModel(id));
    },
    // The catalog for the job fields that name a model by id (speculative_model, machine_jobs[i].model; issue 36):
    // the core resolves them in it. { ok: true }, or the core's refusal.
    useModels(catalog) {
      return useCatalog(catalog) ?? { ok: true };
    },
    // Job fields given as text ([[name, text], ...]; source 'url', 'attribute' or 'flag'), read by the
    // core's one value parser: { ok, job } or an error naming the field (a field given twice names both spellings).
    jobFromText(fields, source) {
      return JSON.parse(core.jobFromText(JSON.stringify(fields), source));
    },
    // The cluster planner's fields the same way: { ok, cluster }.
    clusterFromText(fields, source) {
      return JSON.parse(core.clusterFromText(JSON.stringify(fields), source));
    },
    // One value as text, by its field's kind ('number' | 'boolean' | 'text'): { ok, value }; a text that breaks
    // the rule comes back as text, so the core names the field when it reads the job.
    valueFromText(text, kind, bareIsTrue = false) {
      return JSON.parse(core.valueFromText(text, kind, bareIsTrue));
    },
    // Input text as the core quotes it in its own errors (core/text/errors.hpp short_text): at most 60 characters,
    // valid UTF-8, control and bidirectional characters escaped, then "…" and the size in bytes when longer.
    quoteText(text) {
      return core.quoteText(String(text));
    },
  };
}
