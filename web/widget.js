// <vram-calc> custom element: one script tag, then
//   <vram-calc model="llama-3-8b" mode="train" batch="4"></vram-calc>
// Any job field works as an attribute (kv-dtype or kv_dtype). Flags take
// true/false, or a bare attribute for true; anything else is an error
// naming the field. Styles live in a shadow root with linked sheets (no
// inline <style>), so the host page's CSS neither leaks in nor out and a
// strict CSP (style-src 'self') is enough.
import { loadCore, loadModels, estimate, fitSummary, jobFromText, modeTitle } from './vramcalc-client.js';
import { renderBar, renderBreakdownRows } from './render.js';

const base = new URL('./', import.meta.url);
const core = await loadCore();
const defaults = JSON.parse(core.options()).defaults;
const jobKeys = Object.keys(defaults);
const attributeName = (key) => key.replaceAll('_', '-');

const template = `
<link rel="stylesheet" href="${new URL('parts.css', base)}">
<link rel="stylesheet" href="${new URL('widget.css', base)}">
<div class="w">
  <header><span class="name" part="name"></span><span class="mode"></span></header>
  <p class="error" hidden></p>
  <div class="result">
    <div class="total" aria-live="polite"></div>
    <div class="bar" role="img"></div>
    <table class="breakdown"><caption class="visually-hidden">Memory per GPU by term</caption><tbody></tbody></table>
    <p class="fit"></p>
  </div>
  <a target="_blank" rel="noopener">Open in vramcalc →</a>
</div>`;

class VramCalc extends HTMLElement {
  static get observedAttributes() {
    return ['model', ...jobKeys.map(attributeName), ...jobKeys.filter((k) => k.includes('_'))];
  }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = template;
  }

  connectedCallback() { this.update(); }
  attributeChangedCallback() { if (this.isConnected) this.update(); }

  // The job from the attributes, read by the core's one value parser (core/api/job_text.hpp): a
  // field given as both kv-dtype and kv_dtype is an error naming both.
  job() {
    const fields = [];
    for (const key of jobKeys) {
      for (const name of new Set([attributeName(key), key])) {
        const value = this.getAttribute(name);
        if (value !== null) fields.push([name, value]);
      }
    }
    return jobFromText(fields, 'attribute');
  }

  async update() {
    const $ = (sel) => this.shadowRoot.querySelector(sel);
    // loadCore() hands back the running instance, or a fresh one after a trap.
    // A catalog that cannot be read is this widget's error, not a blank box.
    const catalog = loadModels().then((models) => ({ models }), (error) => ({ models: [], error }));
    const [{ models, error: catalogError }] = await Promise.all([catalog, loadCore()]);
    const id = this.getAttribute('model') || 'llama-3-8b';
    const model = models.find((m) => m.id === id);
    const read = this.job();
    const job = read.ok ? read.job : {};
    const result = catalogError ? { ok: false, error: { message: catalogError.message } }
      : !read.ok ? read
      : model ? estimate(JSON.stringify(model.config), job)
        : { ok: false, error: { message: `model: unknown model '${id}'; known: ${models.map((m) => m.id).join(', ')}` } };
    const query = new URLSearchParams({ model: id, ...job });
    $('a').href = new URL(`index.html?${query}`, base).href;
    $('.name').textContent = model ? model.name : id;
    $('.error').hidden = result.ok;
    $('.result').hidden = !result.ok;
    if (!result.ok) {
      // Nothing of an earlier answer stays: the numbers go with the error.
      $('.error').textContent = result.error.message;
      $('.mode').textContent = '';
      $('.total').replaceChildren();
      $('.fit').textContent = '';
      delete this.dataset.total;
      this.dataset.error = result.error.message;
      return;
    }
    delete this.dataset.error;
    $('.mode').textContent = `${modeTitle(result.job.mode)} · ${result.weight_format} · batch ${result.job.batch} × ${result.job.seq} tokens`;
    $('.total').replaceChildren(result.total_text, Object.assign(document.createElement('small'),
      { textContent: result.layout.gpus > 1 ? ` per GPU, ${result.layout.gpus} GPUs` : ' on one GPU' }));
    renderBar($('.bar'), result);
    renderBreakdownRows($('tbody'), result, false);
    $('.fit').textContent = `${fitSummary(result)}; raw weights ${result.weights_reference_text}, this job ${result.ratio_text} that.`;
    this.dataset.total = result.total_text;
    this.dispatchEvent(new CustomEvent('vramcalc-update', { detail: result }));
  }
}

if (!customElements.get('vram-calc')) customElements.define('vram-calc', VramCalc);
