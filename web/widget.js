// <vram-calc> custom element: one script tag, then
//   <vram-calc model="llama-3-8b" mode="train" batch="4"></vram-calc>
// Any job field works as an attribute (kv-dtype or kv_dtype; machine-jobs takes the JSON list the CLI's
// --machine-jobs takes), and so do
// theme="light|dark|auto" (light by default: a white blog stays white when the
// reader's OS is dark; auto follows the OS), compact (the total and the verdict,
// no breakdown) and calculator (the full calculator's page, for the link); ram="64"
// is the machine's RAM in GB (the core's ram, as ram_gb). Run locally (engine
// llamacpp, ollama or mlx), the widget shows the core's answer for the whole
// machine: both pools, the speed and the command, copyable (local-view.js). Flags take
// true/false, or a bare attribute for true; anything else is an error
// naming the field. Styles live in a shadow root with linked sheets (no
// inline <style>), so the host page's CSS neither leaks in nor out and a
// strict CSP (style-src 'self') is enough. The shadow root is built element by
// element (no HTML strings), so the widget runs under Trusted Types
// (require-trusted-types-for 'script'); its worker URL goes through a policy
// named 'vramcalc' (core-client.js).
//
// The core runs in a Web Worker shared by every widget on the page: a changed
// attribute supersedes the answer on its way, and the last figures stay, dimmed
// and aria-busy, until the new ones arrive. Loaded from another origin, every
// URL is resolved against this module's own (import.meta.url); when the core
// cannot start there (CORS, the host's CSP or Trusted Types), the element says
// why in plain words. Errors are the core's own text, led by the field's label
// ("Batch (per GPU): must be …"); an unknown model gets the core's "did you mean". The figures are the head
// of the core's one answer (docs/answer.md), the page's and the CLI's --json: the same question, the same
// verdict, headline and recipe; intent="fine_tune" (or any of the page's four) applies that recipe.
import { loadCore, loadModels, lookupModel, answer, jobFromText, modeTitle, onCoreStatus, quoted } from './vramcalc-client.js';
import { renderBar, renderBreakdownRows, renderPhases, el } from './render.js';
import { stateLink } from './link.js';
import { localView } from './local-view.js';
import { WHAT_FITS_VIEW, showWhatFits, hideWhatFits } from './widget-what-fits.js';
import { plannerAttributes, plannerFields, plannerRequest, buildPlanner, showPlanner } from './widget-planner.js';

const base = new URL('./', import.meta.url);
// The full calculator beside this file (the npm package ships none: scripts/pack_widget.sh sets null, and then the
// link shows only for an element with a calculator="…" attribute).
const calculatorPage = new URL('index.html', base).href;
let defaults = {};
let clusterFields = [];  // the planner's fields: cluster-* attributes (widget-planner.js)
let startError = null;
try {
  ({ defaults, cluster_fields: clusterFields } = (await loadCore()).options);
} catch (e) {
  startError = e;
}
// The job fields, the models sharing the GPU (issue 36: machine_jobs has no default, so it is listed here), and
// ram (the machine's RAM in GB: the core reads it as ram_gb; issue 32).
const jobKeys = defaults.mode === undefined ? [] : [...Object.keys(defaults), 'machine_jobs', 'ram'];
const attributeName = (key) => key.replaceAll('_', '-');

// The page the "Open in vramcalc" link opens: the calculator attribute (resolved against the host page), else the
// calculator beside this file; only an http(s) address, else no link (issue 37 L2: a javascript: URL became the link).
function calculatorURL(attribute) {
  let url = null;
  try {
    url = attribute ? new URL(attribute, document.baseURI) : calculatorPage && new URL(calculatorPage);
  } catch { /* not a URL */ }
  return url && (url.protocol === 'https:' || url.protocol === 'http:') ? url : null;
}

// The shadow root's parts, built without markup strings.
function build(root) {
  const sheet = (file) => el('link', { rel: 'stylesheet', href: new URL(file, base).href });
  const parts = {
    name: el('span', { class: 'name', part: 'name' }),
    mode: el('span', { class: 'mode' }),
    error: el('p', { class: 'error', hidden: '' }),
    status: el('p', { class: 'status', role: 'status', hidden: '' }),
    result: el('div', { class: 'result' }),
    total: el('div', { class: 'total', 'aria-live': 'polite' }),
    bar: el('div', { class: 'bar', role: 'img' }),
    tbody: el('tbody'),
    fit: el('p', { class: 'fit' }),
    recipe: el('p', { class: 'ratio recipe' }),
    ratio: el('p', { class: 'ratio' }),
    // A post-training mode (issue 36): the peak phase, the phases to one scale, the inverse answers.
    post: el('div', { class: 'post', hidden: '' }),
    peak: el('p', { class: 'peak' }),
    phases: el('ol', { class: 'phases', 'aria-label': 'The phases of one step, in order' }),
    limits: el('p', { class: 'limits' }),
    local: el('div', { class: 'local', hidden: '' }),
    // plan or cluster-* attributes (issue 34): the planner's time and cost, each with its range.
    plan: buildPlanner(),
    link: el('a', { target: '_blank', rel: 'noopener' }, 'Open in vramcalc →'),
  };
  const table = el('table', { class: 'breakdown' });
  table.append(el('caption', { class: 'visually-hidden' }, 'Memory per GPU by term'), parts.tbody);
  parts.post.append(parts.peak, parts.phases, parts.limits);
  parts.result.append(parts.total, parts.bar, table, parts.fit, parts.post, parts.plan, parts.local, parts.recipe, parts.ratio);
  const header = el('header');
  header.append(parts.name, parts.mode);
  const frame = el('div', { class: 'w' });
  frame.append(header, parts.error, parts.status, parts.result, parts.link);
  root.append(sheet('parts.css'), sheet('widget.css'), frame);
  return parts;
}

const widgets = new Set();
// The core's news (a long job, a restart for a newer input) shows in every widget waiting for an answer.
onCoreStatus(({ kind, message }) => {
  for (const w of widgets) w.coreStatus(kind, message);
});

class VramCalc extends HTMLElement {
  #parts;
  #controller = null;
  #serial = 0;

  static get observedAttributes() {
    return ['model', 'calculator', 'intent', 'view', 'sort', 'rows', ...jobKeys.map(attributeName), ...jobKeys.filter((k) => k.includes('_')),
      ...plannerAttributes(clusterFields)];
  }

  constructor() {
    super();
    this.#parts = build(this.attachShadow({ mode: 'open' }));
  }

  connectedCallback() {
    widgets.add(this);
    this.update();
  }
  disconnectedCallback() {
    widgets.delete(this);
    this.#controller?.abort();
  }
  attributeChangedCallback() { if (this.isConnected) this.update(); }

  // The attributes that name job fields, as [name, text] pairs for the core's one value parser
  // (core/api/job_text.hpp, through jobFromText): kv-dtype and kv_dtype both given is an error naming both.
  fields() {
    const fields = [];
    for (const key of jobKeys) {
      for (const name of new Set([attributeName(key), key])) {
        const value = this.getAttribute(name);
        if (value !== null) fields.push([name, value]);
      }
    }
    return fields;
  }

  // Shown while this widget waits; a restart's or a stop's note stays until its next change.
  coreStatus(kind, message) {
    const { status } = this.#parts;
    if (kind === 'done') {
      if (status.dataset.kind === 'slow') status.hidden = true;
    } else if (this.hasAttribute('aria-busy')) {
      Object.assign(status, { hidden: false, textContent: message });
      status.dataset.kind = kind;
    }
  }

  #busy(on) {
    this.#parts.result.classList.toggle('pending', on);
    if (on) this.setAttribute('aria-busy', 'true');
    else this.removeAttribute('aria-busy');
  }

  // A post-training step: its peak phase, every phase to the peak's scale, the longest completion and the most
  // completions per prompt that fit (the core's texts).
  #showPosttrain(post) {
    const p = this.#parts;
    p.post.hidden = !post;
    if (!post) {
      delete this.dataset.peak;
      return;
    }
    const peak = post.phases.find((phase) => phase.peak);
    p.peak.textContent = peak ? `${modeTitle(post.mode)}: the peak is ${post.peak_label}, ${peak.text}` : '';
    renderPhases(p.phases, post, false);
    p.limits.textContent = post.limits.map((l) => l.text).join('; ');
    this.dataset.peak = post.peak_phase;
  }

  // Nothing of an earlier answer stays beside an error: the numbers go with it.
  #showError(message) {
    const p = this.#parts;
    this.#busy(false);
    p.error.hidden = false;
    p.result.hidden = true;
    p.error.textContent = message;
    p.mode.textContent = '';
    p.total.replaceChildren();
    p.fit.textContent = '';
    p.recipe.textContent = '';
    p.ratio.textContent = '';
    p.post.hidden = true;
    p.local.replaceChildren();
    p.local.hidden = true;
    showPlanner(p.plan, undefined);
    delete this.dataset.total;
    delete this.dataset.peak;
    this.dataset.error = message;
  }

  // The catalog entry the model attribute names (an id, alias or Hub id), or the core's error.
  async #model(models, id, signal) {
    const exact = models.find((m) => m.id === id);
    if (exact) return { model: exact };
    const found = await lookupModel(models, id, { signal });
    if (found.cancelled) return { cancelled: true };
    return found.ok ? { model: models.find((m) => m.id === found.id) } : { error: found.error };
  }

  async update() {
    const p = this.#parts;
    this.#controller?.abort();
    this.#controller = new AbortController();
    const { signal } = this.#controller;
    const mine = ++this.#serial;
    const id = this.getAttribute('model') || 'llama-3-8b';
    p.status.hidden = true;
    if (startError) return this.#showError(startError.message);
    this.#busy(true);
    // view="what-fits": the top of "What can I run?" for the attributes' machine (widget-what-fits.js).
    if (this.getAttribute('view') === WHAT_FITS_VIEW) {
      return showWhatFits(this, p, { fields: this.fields(), current: () => mine === this.#serial, busy: (on) => this.#busy(on),
        fail: (message) => this.#showError(message), calculator: calculatorURL(this.getAttribute('calculator')) });
    }
    hideWhatFits(this);
    // A catalog that cannot be read is this widget's error, not a blank box.
    const { models, error } = await loadModels().then((m) => ({ models: m }), (e) => ({ models: [], error: e }));
    if (mine !== this.#serial) return undefined;
    const found = error ? { error: { message: error.message } } : await this.#model(models, id, signal);
    if (mine !== this.#serial || found.cancelled) return undefined;
    const { model } = found;
    const read = await jobFromText(this.fields(), 'attribute', { signal });
    if (mine !== this.#serial || read.cancelled) return undefined;
    const job = read.ok ? read.job : {};
    const intent = this.getAttribute('intent');
    // The launch command names the model as the CLI does (its Hub id), unless model-id says otherwise.
    const asked = model && !('model_id' in job) ? { ...job, model_id: model.hf_id || model.id } : job;
    // plan or cluster-* attributes: the one answer's planner part too, with the cluster the core read from them.
    const planFields = plannerFields(this, clusterFields);
    const plan = planFields && !found.error && read.ok ? await plannerRequest(planFields, signal) : null;
    if (mine !== this.#serial || plan?.cancelled) return undefined;
    const question = { model_name: model?.name ?? '', job: asked, parts: plan?.cluster ? ['head', 'planner'] : ['head'],
      ...(plan?.cluster ? { cluster: plan.cluster } : {}), ...(intent ? { intent } : {}) };
    const result = found.error ? { ok: false, error: found.error }
      : !read.ok ? read : await answer(JSON.stringify(model.config), question, { signal });
    if (mine !== this.#serial || result.cancelled) return undefined;
    // A model the catalog does not have is named as the core quotes input (a 400,000-character attribute: issue 37 H1).
    const name = model ? model.name : await quoted(id, { signal });
    if (mine !== this.#serial) return undefined;
    p.name.textContent = name;
    const page = calculatorURL(this.getAttribute('calculator'));
    p.link.hidden = !page;
    // A list (machine_jobs) travels as the JSON text the page reads.
    const linked = Object.entries(job).map(([key, value]) => [key, typeof value === 'object' ? JSON.stringify(value) : String(value)]);
    if (page) p.link.href = await stateLink(page, new URLSearchParams([['model', model?.id ?? id], ...linked, ...(intent ? [['intent', intent]] : []),
      ...(planFields?.fields ?? []).map(([key, value]) => [`cl_${key}`, value])]));
    else p.link.removeAttribute('href');
    if (mine !== this.#serial) return undefined;
    if (!result.ok) return this.#showError(result.error.text ?? result.error.message);
    this.#busy(false);
    p.error.hidden = true;
    p.result.hidden = false;
    delete this.dataset.error;
    const card = result.cards.find((c) => c.current);
    p.mode.textContent = `${card.title} · batch ${result.job.batch} × ${result.job.seq} tokens`;
    // The headline: the per-GPU total, or under vLLM / SGLang what the users need (the engine's budget is its own view).
    p.total.replaceChildren(result.headline.total_text, el('small', {}, ` ${result.headline.scope_text}`));
    renderBar(p.bar, result);
    // A blog needs only the terms this job has (no "KV cache 0.00 GB" under training); the page lists them all.
    renderBreakdownRows(p.tbody, { ...result, terms: result.terms.filter((t) => t.bytes > 0) }, false);
    // The core's verdict: on the reader's gpu="…", or what the job needs; with machine-jobs, the shared GPU's first
    // (the one answer's machine.shared).
    const shared = result.machine?.shared;
    p.fit.textContent = shared ? `${shared.verdict}. This job alone: ${result.verdict.text}` : result.verdict.text;
    this.#showPosttrain(result.posttrain);
    showPlanner(p.plan, plan?.error ? { ok: false, error: plan.error } : result.planner);
    // Run locally: the whole machine's answer and the command (vLLM and SGLang: their launch line).
    const local = localView(result);
    p.local.hidden = !local;
    p.local.replaceChildren(...(local ? [local] : []));
    p.recipe.textContent = result.recipe.text;
    p.ratio.textContent = result.ratio_sentence;
    this.dataset.total = result.headline.total_text;
    this.dispatchEvent(new CustomEvent('vramcalc-update', { detail: result }));
    return undefined;
  }
}

if (!customElements.get('vram-calc')) customElements.define('vram-calc', VramCalc);
