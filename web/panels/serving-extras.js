// Serving beside the model itself (issue 36; docs/serving.md): speculative decoding's proposer (a draft
// model, EAGLE heads, MTP layers, n-gram) and the adapter slots of multi-LoRA serving, as the core
// answers them in `serving.speculative` and `serving.lora_slots`. Their fields are the job form's
// (web/page.html #speculative-fields, #lora-slot-fields). Every figure and text is the core's.
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);
const methodWords = { draft: 'a draft model', eagle: 'EAGLE heads', eagle3: 'EAGLE-3 heads', mtp: 'the model\'s MTP layers', ngram: 'n-gram lookup' };

export function renderServingExtras(result) {
  const box = $('serving-extras');
  const spec = result.serving?.speculative;
  const slots = result.serving?.lora_slots;
  const items = [];
  if (spec && spec.method !== 'none') {
    items.push(el('li', { 'data-extra': 'speculative' }, `Speculative decoding with ${methodWords[spec.method] ?? spec.method}` +
      `${spec.model ? ` (${spec.model})` : ''}: weights ${spec.weights_text}, KV ${spec.kv_text}. ${spec.why}`));
  }
  if (slots?.enabled) {
    items.push(el('li', { 'data-extra': 'lora_slots' }, `LoRA adapter slots: ${slots.gpu_text} on the GPU, ${slots.cpu_text} in host RAM. ${slots.why}`));
  }
  box.hidden = !items.length;
  box.replaceChildren(...items);
}
