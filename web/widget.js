// <vram-calc> custom element: one script tag, then
//   <vram-calc model="llama-3-8b" mode="train" batch="4"></vram-calc>
// Any job field works as an attribute (kv-dtype or kv_dtype). Styles live in
// a shadow root, so the host page's CSS neither leaks in nor out.
import { loadCore, loadModels, estimate, fitSummary, jobValue, modeTitles } from './vramcalc-client.js';
import { renderBar, renderBreakdownRows } from './render.js';

const base = new URL('./', import.meta.url);
const core = await loadCore();
const defaults = JSON.parse(core.options()).defaults;
const jobKeys = Object.keys(defaults);
const attributeName = (key) => key.replaceAll('_', '-');

const template = `
<link rel="stylesheet" href="${new URL('parts.css', base)}">
<style>
  :host { display: block; font-family: system-ui, sans-serif; color: var(--ink); max-width: 42rem; margin: 1rem 0; }
  .w { border: 1px solid var(--line); border-radius: 8px; padding: 0.8rem 1rem; background: #fff; }
  header { display: flex; justify-content: space-between; gap: 1rem; align-items: baseline; flex-wrap: wrap; }
  .name { font-weight: 650; }
  .mode { color: var(--muted); font-size: 0.85rem; }
  .total { font-size: 1.8rem; font-weight: 650; margin: 0.3rem 0 0.5rem; }
  .total small { font-size: 0.9rem; color: var(--muted); font-weight: 400; }
  table { font-size: 0.85rem; }
  .fit { font-size: 0.9rem; margin: 0.5rem 0 0.2rem; }
  .error { color: #8e1c1c; background: #fdecea; padding: 0.5rem; border-radius: 5px; }
  a { font-size: 0.8rem; color: #1f4e79; }
</style>
<div class="w">
  <header><span class="name" part="name"></span><span class="mode"></span></header>
  <p class="error" role="alert" hidden></p>
  <div class="result">
    <div class="total"></div>
    <div class="bar" role="img"></div>
    <table class="breakdown"><tbody></tbody></table>
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

  job() {
    const job = {};
    for (const key of jobKeys) {
      const value = this.getAttribute(attributeName(key)) ?? this.getAttribute(key);
      if (value !== null) job[key] = jobValue(value, defaults[key]);
    }
    return job;
  }

  async update() {
    const $ = (sel) => this.shadowRoot.querySelector(sel);
    const models = await loadModels();
    const id = this.getAttribute('model') || 'llama-3-8b';
    const model = models.find((m) => m.id === id);
    const job = this.job();
    const result = model ? estimate(core, JSON.stringify(model.config), job)
      : { ok: false, error: { message: `model: unknown model '${id}'; known: ${models.map((m) => m.id).join(', ')}` } };
    const query = new URLSearchParams({ model: id, ...job });
    $('a').href = new URL(`index.html?${query}`, base).href;
    $('.name').textContent = model ? model.name : id;
    $('.error').hidden = result.ok;
    $('.result').hidden = !result.ok;
    if (!result.ok) {
      $('.error').textContent = result.error.message;
      $('.mode').textContent = '';
      return;
    }
    $('.mode').textContent = `${modeTitles[result.job.mode]} · ${result.weight_format} · batch ${result.job.batch} × ${result.job.seq} tokens`;
    $('.total').innerHTML = '';
    $('.total').append(result.total_text, Object.assign(document.createElement('small'),
      { textContent: result.layout.gpus > 1 ? ` per GPU, ${result.layout.gpus} GPUs` : ' on one GPU' }));
    renderBar($('.bar'), result);
    renderBreakdownRows($('tbody'), result, false);
    $('.fit').textContent = `${fitSummary(result)}; raw weights ${result.weights_reference_text}, this job ${result.ratio_text} that.`;
    this.dataset.total = result.total_text;
    this.dispatchEvent(new CustomEvent('vramcalc-update', { detail: result }));
  }
}

if (!customElements.get('vram-calc')) customElements.define('vram-calc', VramCalc);
