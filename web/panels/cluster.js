// The "Cluster" section: renders the answer of the core's cluster planner
// (vramcalc.cluster(jobJson, clusterJson), core/cluster_answer.cpp). Every
// number shown is a text the core wrote; this module does no arithmetic.
//
//   mount(root, { hardware, fields, onChange }) builds its controls (GPU, count,
//   fabric, token budget, price, concurrency) and returns { render(answer) };
//   app.js asks the core (cluster(config, job, fields)) and hands the answer over.


function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'style') Object.assign(node.style, v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function card(title, big, sub) {
  return el('div', { class: 'vc-cl-card' }, el('h3', {}, title), el('p', { class: 'vc-cl-big' }, big), el('p', { class: 'vc-cl-sub' }, sub));
}

function table(caption, headers, rows) {
  const head = el('tr', {}, ...headers.map((h) => el('th', { scope: 'col' }, h)));
  const body = el('tbody', {}, ...rows);
  return el('div', { class: 'vc-cl-scroll' }, el('table', { class: 'vc-cl-table' }, el('caption', {}, caption), el('thead', {}, head), body));
}

// Where the step's time goes: one segment per term, grown by its share.
function timeline(terms) {
  const bar = el('div', { class: 'vc-cl-bar', role: 'img' });
  bar.setAttribute('aria-label', terms.map((t) => `${t.label} ${t.exposed_text} (${t.share_text})`).join(', '));
  for (const t of terms) {
    if (!(t.share > 0)) continue;
    bar.append(el('div', { class: `vc-cl-seg vc-cl-${t.key}`, title: `${t.label}: ${t.exposed_text}`, style: { flexGrow: String(t.share) } }));
  }
  return bar;
}

function hardware(a) {
  const hw = a.hardware;
  return el('div', { class: 'vc-cl-hw' },
    el('p', {}, el('strong', {}, hw.nodes_text)),
    el('p', { class: 'vc-cl-sub' }, `${hw.gpu.peak_text} · ${hw.gpu.memory_bw_text} · ${hw.gpu.usable_text} usable · ${hw.gpu.link_text}`),
    el('p', { class: 'vc-cl-sub' }, `Between nodes: ${hw.fabric.text}`),
    el('p', { class: 'vc-cl-src' }, `Sources: ${hw.gpu.source}; ${hw.fabric.source}`));
}

// The planner's assumptions, each editable: its input holds the value in force (the core's), a
// change sends the field to the core, which reads it and names it when it is out of range.
// Inputs persist across answers (focus and typing are kept); their texts follow each answer.
function assumptions(a, editor) {
  const box = el('details', { class: 'vc-cl-assume' }, el('summary', {}, 'Assumptions (editable)'));
  if (editor.open) box.open = true;
  box.addEventListener('toggle', () => { editor.open = box.open; });
  const list = el('ul', {});
  for (const x of a.assumptions) {
    const id = `cl-${x.key}`;
    let input = editor.inputs.get(x.key);
    const flag = x.key === 'overlap_tp' || x.key === 'overlap_ep';
    if (!input) {
      input = flag ? el('input', { id, type: 'checkbox' }) : el('input', { id, type: 'text', inputmode: 'decimal', size: '6' });
      applyOn(input, () => editor.set(x.key, flag ? String(input.checked) : input.value));
      editor.inputs.set(x.key, input);
    }
    const given = editor.fields[x.key];
    if (flag) input.checked = given !== undefined ? given === 'true' : x.value === 1;
    // Fields whose value in force is "not set" show an empty box with what applies instead (the core's text).
    const unset = (x.key === 'compute_efficiency' && !x.value) || (x.key === 'latency_us' && x.value < 0);
    if (!flag && document.activeElement !== input) input.value = given ?? (unset ? '' : String(x.value));
    if (x.key === 'compute_efficiency') input.setAttribute('placeholder', 'per op');
    if (x.key === 'latency_us') input.setAttribute('placeholder', 'NCCL');
    list.append(el('li', { 'data-key': x.key }, input, ' ', el('label', { for: id }, x.text)));
  }
  box.append(list);
  return box;
}

function training(a) {
  const t = a.train;
  const out = [];
  // Time and cost first: what a training budget takes on this cluster.
  if (t.budget) {
    const b = t.budget;
    out.push(el('div', { class: 'vc-cl-cards vc-cl-budget' },
      card(`To train ${b.tokens_text}`, b.time_text, b.gpu_hours_text),
      ...(b.cost_text ? [card('Cost', b.cost_amount_text, b.cost_text)] : [])));
  } else {
    out.push(el('p', { class: 'vc-cl-sub' }, 'Set the tokens to train (1T, 15e12, 1.5 trillion) and a price per GPU-hour for the time and cost.'));
  }
  out.push(
    el('div', { class: 'vc-cl-cards' },
      card('Throughput', t.tokens_per_s_per_gpu_text, t.tokens_per_s_text + ' for the cluster'),
      card('Step', t.step_text, `${t.tokens_per_step_text} · ${t.layout.text}`),
      card('Utilisation', t.mfu_text, t.hfu_text + ' (with recomputation)'),
      card('Memory', t.memory_text, t.fits_text)),
    el('p', { class: `vc-cl-bound vc-cl-bound-${t.bound}` }, t.bound_text),
    ...(a.recommendation && a.recommendation.chosen_why ? [el('p', { class: 'vc-cl-why vc-cl-chosen' }, a.recommendation.chosen_why)] : []),
    ...(t.range_text ? [el('p', { class: 'vc-cl-sub vc-cl-range' }, t.range_text)] : []),
    timeline(t.terms),
    table('Where the step time goes', ['Term', 'Link', 'Exposed', 'If not overlapped', 'Share', 'How'],
      t.terms.map((x) => el('tr', { 'data-term': x.key },
        el('td', {}, el('span', { class: `vc-cl-swatch vc-cl-${x.key}` }), x.label),
        el('td', {}, x.link || '—'),
        el('td', { class: 'vc-cl-num' }, x.exposed_text),
        el('td', { class: 'vc-cl-num' }, x.time_text),
        el('td', { class: 'vc-cl-num' }, x.share_text),
        el('td', { class: 'vc-cl-how' }, x.why)))),
    el('p', { class: 'vc-cl-sub' }, t.flops_text));
  if (t.ops && t.ops.length) {
    out.push(table(`The compute, op by op (${t.precision}, ${t.schedule})`, ['Op', 'Time', 'Share of the step', 'How'],
      t.ops.map((o) => el('tr', { 'data-op': o.key },
        el('td', {}, o.label),
        el('td', { class: 'vc-cl-num' }, o.time_text),
        el('td', { class: 'vc-cl-num' }, o.share_text),
        el('td', { class: 'vc-cl-how' }, o.why)))));
  }
  const rec = a.recommendation;
  if (rec && !rec.best && rec.least_memory) {
    out.push(el('p', { class: 'vc-cl-why' }, rec.why));
  }
  if (rec && rec.best) {
    out.push(el('h3', { class: 'vc-cl-h' }, `Recommended layout (${rec.considered} considered)`),
      el('p', {}, el('strong', {}, rec.best.layout_text), ` — ${rec.best.tokens_per_s_per_gpu_text}, ${rec.best.memory_text} per GPU`),
      el('p', { class: 'vc-cl-why' }, rec.why),
      table('Fastest layouts that were considered', ['Layout', 'Tokens/s per GPU', 'Step', 'MFU', 'Memory per GPU', 'Fits', 'Bound'],
        rec.candidates.map((c) => el('tr', { class: c.fits ? 'vc-cl-ok' : 'vc-cl-no' },
          el('td', {}, c.layout_text),
          el('td', { class: 'vc-cl-num' }, c.tokens_per_s_per_gpu_text),
          el('td', { class: 'vc-cl-num' }, c.step_text),
          el('td', { class: 'vc-cl-num' }, c.mfu_text),
          el('td', { class: 'vc-cl-num' }, c.memory_text),
          el('td', {}, c.fits ? '✓ fits' : '✗ too big'),
          el('td', { class: 'vc-cl-how' }, c.bound_text)))));
  }
  return out;
}

function serving(a) {
  const s = a.serve;
  return [
    el('div', { class: 'vc-cl-cards' },
      card('Decode', s.tokens_per_s_per_seq_text, `${s.tokens_per_s_replica_text} · ${s.tokens_per_s_cluster_text}`),
      card('First token', s.ttft_text, s.prefill_text),
      card('Per step', s.token_text, s.read_text),
      card('Memory', s.memory_text, `${s.layout.text}${s.fits ? '' : ' — does not fit'}`)),
    el('p', { class: 'vc-cl-bound' }, s.bound_text),
    // Time per output token under the load, with its range (issue 34): the core's text.
    ...(s.tpot_text ? [el('p', { class: 'vc-cl-sub vc-cl-tpot' }, s.tpot_text)] : []),
    ...(s.layout_why ? [el('p', { class: 'vc-cl-why vc-cl-chosen' }, s.layout_why)] : []),
    ...(s.range_text ? [el('p', { class: 'vc-cl-sub vc-cl-range' }, s.range_text)] : []),
    el('p', { class: 'vc-cl-sub' }, s.kv_text),
    el('p', { class: 'vc-cl-sub' }, `${s.comm_text}; ${s.kernel_text}`),
  ];
}

export function renderCluster(root, answer, editor = null) {
  root.classList.add('vc-cluster');
  if (!answer || answer.ok !== true) {
    const error = answer && answer.error ? answer.error : { field: 'cluster', message: 'no answer' };
    const message = el('p', { class: 'vc-cl-error', role: 'alert', 'data-field': error.field }, error.text ?? error.message);
    // The assumptions stay editable (from the last answer), so a value the core refused can be put right.
    root.replaceChildren(message, ...(editor?.last ? [assumptions(editor.last, editor)] : []));
    return;
  }
  if (editor) editor.last = answer;
  const parts = [...(answer.workload === 'train' ? training(answer) : serving(answer)), hardware(answer)];
  if (editor) parts.push(assumptions(answer, editor));
  else parts.push(el('ul', { class: 'vc-cl-assume' }, ...answer.assumptions.map((x) => el('li', { 'data-key': x.key }, x.text))));
  if (answer.notes.length) parts.push(el('ul', { class: 'vc-cl-notes' }, ...answer.notes.map((n) => el('li', {}, n))));
  root.replaceChildren(...parts);
}

// The controls: every list comes from the core's hardware catalog; values are
// passed to the core as typed (it validates them and names the field), as they are typed (a pause in
// typing applies them; no Enter needed).
// The GPUs are the user's machine (Your GPUs, the page's one GPU control, count included): the core runs the
// planner on it, or with none chosen on the GPUs its verdict recommends (api/answer_parts.cpp).
const kFields = [
  ['tokens', 'Tokens to train', 'text'], ['price_per_gpu_hour', '$ per GPU-hour', 'text'],
  ['fabric', 'Between nodes', 'select'], ['concurrency', 'Concurrent requests', 'number'],
];
const TYPING_MS = 400;

// A field applied on change, and after a pause in typing.
function applyOn(input, apply) {
  let timer = 0;
  input.addEventListener('change', () => { clearTimeout(timer); apply(); });
  if (input.tagName === 'INPUT' && input.type !== 'checkbox') {
    input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(apply, TYPING_MS); });
  }
}

export function mount(root, { hardware, fields, onChange }) {
  root.classList.add('vc-cluster');
  const form = el('form', { class: 'vc-cl-form', 'aria-label': 'Cluster settings' });
  form.addEventListener('submit', (e) => e.preventDefault());
  const inputs = {};
  for (const [key, label, kind] of kFields) {
    const id = `cl-${key}`;
    let input;
    if (kind === 'select') {
      input = el('select', { id, name: key });
      input.append(new Option('InfiniBand NDR (default)', ''));
      for (const f of hardware.fabrics) input.append(new Option(f.name, f.id));
    } else {
      input = el('input', { id, name: key, type: kind === 'number' ? 'number' : 'text', inputmode: 'decimal', min: '1' });
      if (key === 'tokens') input.setAttribute('placeholder', 'e.g. 1T, 15e12, 1.5 trillion');
      if (key === 'price_per_gpu_hour') input.setAttribute('placeholder', 'e.g. 2.5');
    }
    input.value = fields[key] ?? '';
    applyOn(input, () => {
      if ((fields[key] ?? '') === input.value) return;
      if (input.value === '') delete fields[key];
      else fields[key] = input.value;
      onChange();
    });
    inputs[key] = input;
    form.append(el('div', { class: 'vc-cl-field' }, el('label', { for: id }, label), input));
  }
  const out = el('div', { class: 'vc-cl-out' });
  const gpuNote = el('p', { class: 'vc-cl-sub vc-cl-gpu' });
  const editor = { fields, inputs: new Map(), open: false, set(key, value) {
    if (value === '') delete fields[key];
    else fields[key] = value;
    onChange();
  } };
  root.replaceChildren(el('h2', {}, 'Cluster: time, cost and throughput'), gpuNote, form, out);
  return {
    // After Back/Forward the fields come from the URL again: show them.
    sync() {
      for (const [key, input] of Object.entries(inputs)) input.value = fields[key] ?? '';
      for (const [key, input] of editor.inputs) if (input.type !== 'checkbox') input.value = fields[key] ?? input.value;
    },
    // The fields as typed: the core's one value parser reads them (core/api/job_text.hpp, core-api.mjs).
    request() {
      const { gpu: _gpu, gpus: _gpus, ...request } = fields;  // the machine's GPU and count are the core's to set
      return request;
    },
    // answer: the planner part; check: the answer's planner_check; head: the answer's head (its machine).
    render(answer, check = null, head = null) {
      const hw = answer?.ok ? answer.hardware : null;
      gpuNote.textContent = !hw ? '' : head?.machine?.given ? `On your GPUs: ${hw.nodes_text} (set under Your GPUs).`
        : `No GPU chosen: on ${hw.nodes_text}, the GPUs the verdict recommends; choose yours under Your GPUs.`;
      for (const input of [...Object.values(inputs), ...editor.inputs.values()]) {
        input.removeAttribute('aria-invalid');
        input.removeAttribute('aria-describedby');
      }
      const field = answer && answer.ok === false ? String(answer.error.field).replace(/^cluster\./, '') : '';
      const shown = out.querySelector('details.vc-cl-assume');
      if (shown) editor.open = shown.open;  // opened or closed since the last answer: kept as the reader left it
      renderCluster(out, answer, editor);
      // The verdict and the planner answer the same question: when they part, the page says so (the core's facts).
      if (check && check.verdict_fits !== undefined && check.fits !== undefined && check.verdict_fits !== check.fits) {
        out.prepend(el('p', { class: 'vc-cl-why vc-cl-part' }, check.verdict_fits
          ? `The verdict fits your GPUs, but the planner's layout (${check.layout_text}) does not fit their memory; its times are for that layout.`
          : `The verdict is for the job as it is laid out, which does not fit these GPUs; the planner times a layout that does (${check.layout_text}).`));
      }
      // Own properties only: a link's cl_constructor or cl_toString names no input (issue 37 L1).
      const bad = Object.hasOwn(inputs, field) ? inputs[field] : editor.inputs.get(field);
      if (bad) {
        bad.setAttribute('aria-invalid', 'true');
        const message = out.querySelector('.vc-cl-error');
        if (message) {
          message.id = 'cl-error';
          bad.setAttribute('aria-describedby', 'cl-error');
        }
      }
      root.classList.add('vc-cluster');
    },
  };
}
