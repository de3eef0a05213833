// Intent first (issue 23): the core's four entry points (Run locally, Serve,
// Fine-tune, Pre-train / full fine-tune; core/job/intents.cpp, every value
// cited there). A button sets the job to the intent's preset, every field
// stays editable; the preset's sources are listed under the buttons. The page
// adds no values of its own.
import { state } from '../state.js';
import { setField } from './job.js';
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);
// A field as its control's label names it (never the core's field id).
const labelOf = (key) => $(key)?.labels?.[0]?.textContent.trim() || key;

// answer: the core's intents(); context: { fieldIds, defaults }; onApply(intent) recomputes.
export function initIntents(answer, { fieldIds, defaults }, onApply) {
  const box = $('intents');
  // The four entry points, then post-training (issue 36: the core lists it apart, under post_train).
  const list = [...(answer?.intents ?? []), ...(answer?.post_train ?? [])];
  box.hidden = !list.length;
  const note = el('p', { id: 'intent-note', class: 'hint', 'aria-live': 'polite' });
  const buttons = list.map((intent) => {
    const button = el('button', { type: 'button', 'data-intent': intent.id, 'aria-pressed': 'false', title: intent.question }, intent.label);
    button.addEventListener('click', () => {
      for (const key of fieldIds) {
        const given = key in intent.job;
        setField(key, given ? intent.job[key] : defaults[key]);
        if (given) state.touched.add(key); else state.touched.delete(key);
      }
      if ('gpus' in intent.job) state.yourGpus.count = String(intent.job.gpus);
      for (const key of Object.keys(state.cluster)) delete state.cluster[key];  // the cluster panel holds this object
      Object.assign(state.cluster, intent.cluster ?? {});
      for (const b of box.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
      note.textContent = `${intent.question} Preset: ${Object.entries(intent.job_sources ?? {})
        .map(([key, why]) => `${labelOf(key)} ${intent.job[key]} (${why})`).join('; ')}.`;
      onApply(intent);
    });
    return button;
  });
  box.replaceChildren(el('span', { class: 'intents-title' }, 'I want to:'), ...buttons, note);
}
