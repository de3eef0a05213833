// "What fits on your GPU": the core's inverse answers (solveCurrent, questions
// of core/inverse.hpp) for the job on one GPU, each with the core's text and
// the per-GPU totals at the answer and one step past it, as the core
// re-estimated them. GPUs are the estimate's fit rows: the catalog, and the
// user's own size (id "custom") when one is typed.
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);
const questionTitles = {
  max_context: 'Longest context', max_batch: 'Largest batch', best_format: 'Largest weight format',
  min_gpus: 'Fewest GPUs', max_gpu_layers: 'Most layers on the GPU (-ngl)',
};

// The fit row the answers are for: your GPU (its custom size, else the
// catalog GPU chosen under Your GPUs), else the smallest catalog GPU that
// holds the job as configured, else the largest.
export function fitsGpu(result) {
  const rows = result.fits;
  const has = (id) => rows.some((f) => f.id === id);
  const id = ['custom', result.job.gpu].find((x) => x && has(x))
    ?? rows.find((f) => f.fits_as_configured)?.id ?? rows[rows.length - 1]?.id;
  return rows.find((f) => f.id === id);
}

// The job sent for the answers: the same fields, on that GPU (your memory size as you typed it, GB or GiB).
export function fitsJob(job, gpu) {
  const { gpu: _gpu, device_gb: gb, device_gib: gib, ...rest } = job;
  if (gpu.id !== 'custom') return { ...rest, gpu: gpu.id };
  return gb !== undefined ? { ...rest, device_gb: gb } : { ...rest, device_gib: gib };
}

const fitWord = (fits) => (fits ? '✓ fits' : '✗ does not fit');

// answers: [{ question, answer }] with the core's answer JSON (or its error).
export function renderFits(result, gpu, answers) {
  // A question that does not apply to this engine or mode (-ngl outside llama.cpp / Ollama, the
  // weight format when fine-tuning) is left out.
  const shown = answers.filter(({ answer }) => answer.ok || !['job.engine', 'job.mode'].includes(answer.error.field));
  const errors = [...new Set(shown.filter(({ answer }) => !answer.ok).map(({ answer }) => answer.error.message))];
  const allFailed = shown.every(({ answer }) => !answer.ok);
  $('fits-note').textContent = allFailed ? errors.join(' ') : `On ${gpu.name} · ${gpu.capacity_text}, with the rest of the job as set.`;
  $('fits-answers').hidden = allFailed;
  if (allFailed) return;
  $('fits-answers').tBodies[0].replaceChildren(...shown.map(({ question, answer: a }) => {
    const row = el('tr', { 'data-question': question });
    row.append(el('th', { scope: 'row' }, questionTitles[question] ?? question));
    if (!a.ok) {
      row.append(el('td', { colspan: '3' }, a.error.message));
      return row;
    }
    row.dataset.found = String(a.found);
    row.append(el('td', { class: 'answer' }, a.text),
      el('td', { class: 'at' }, a.found ? `${a.answer_label}: ${a.total_at_answer_text} ${fitWord(true)}` : '—'),
      el('td', { class: 'next' }, a.found && a.next_exists ? `${a.next_label}: ${a.total_at_next_text} ${fitWord(a.fits_at_next)}`
        : a.found ? 'end of the range' : '—'));
    return row;
  }));
}
