// "Run locally": the core's llama.cpp quant ladder for the job on your GPU
// (ladder_current: F16 to Q2_K, each rung full offload / partial -ngl N / too
// large, with the core's sentence). Shown under llama.cpp and Ollama.
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);
const badges = { full: 'full offload', partial: 'partial', too_large: 'too large', size: 'size only' };

// answer: the core's ladder JSON, or null when the job is not run locally.
export function renderLadder(answer) {
  const panel = $('ladder-panel');
  panel.hidden = !answer?.ok;
  if (!answer?.ok) return;
  $('ladder-title').textContent = answer.gpu
    ? `Which quantization runs on your ${answer.gpus > 1 ? `${answer.gpus} × ` : ''}${answer.gpu} (llama.cpp)`
    : 'Quantizations of this model (llama.cpp): choose your GPU at the top to see which run on it';
  $('ladder').tBodies[0].replaceChildren(...answer.rungs.map((r) => {
    const row = el('tr', { 'data-dtype': r.dtype, 'data-status': r.status });
    const badge = el('span', { class: `badge ${r.status}` }, r.status === 'partial' ? `partial -ngl ${r.gpu_layers}` : badges[r.status] ?? r.status);
    const on = el('td', { class: 'how' });
    on.append(badge, ' ', r.text);
    row.append(el('th', { scope: 'row' }, r.label), el('td', { class: 'num' }, r.file_text), on);
    return row;
  }));
}
