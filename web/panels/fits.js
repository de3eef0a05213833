// "What fits": the answer's what_fits part (docs/answer.md), the core's inverse answers (questions of
// core/answers/inverse.hpp) on your GPU, else on the GPU the verdict recommends, so this panel and the
// verdict name the same GPU. Each row: the core's answer, and both sides of it (at the answer, one step
// past) as the core wrote them; under vLLM / SGLang in users, tokens and the KV against the pool.
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);

// part: { chosen, gpu, gpu_name, text, rows: [{ question, title, text, at_text, next_text, same_why, error }] }.
export function renderFits(part) {
  const rows = part.rows ?? [];
  $('fits-title').textContent = part.chosen === 'recommended' ? 'What fits on the recommended GPU' : 'What fits on your GPU';
  $('fits-note').textContent = part.text;
  $('fits-answers').hidden = !rows.length;
  $('fits-answers').tBodies[0].replaceChildren(...rows.map((a) => {
    const row = el('tr', { 'data-question': a.question });
    row.append(el('th', { scope: 'row' }, a.title));
    if (a.error) {
      row.append(el('td', { colspan: '3' }, a.error));
      return row;
    }
    row.dataset.found = String(a.found);
    const next = el('td', { class: 'next' }, a.next_text);
    if (a.same_why) next.append(el('span', { class: 'same-why' }, ` (${a.same_why})`));
    row.append(el('td', { class: 'answer' }, a.text), el('td', { class: 'at' }, a.at_text), next);
    return row;
  }));
}
