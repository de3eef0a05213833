// Intent first (issue 23, issue 33): the core's four entry points (Run locally, Serve, Fine-tune,
// Pre-train / full fine-tune; core/job/intents.cpp, every value cited there). A button chooses the intent:
// the page sends its id with the question and the core applies its recipe for the model (a 70B takes
// torchtitan's 70B config, an MoE expert parallelism) under the fields the user sets afterwards. An intent
// sets the job, never the machine: your GPUs stay as they are. The recipe in force is the answer's, said
// under the buttons on one line (panels/results.js).
import { state } from '../state.js';
import { setField, setIntentModes } from './job.js';
import { el } from '../render.js';

const $ = (id) => document.getElementById(id);
let buttons = [];

// The buttons as the state says (after a link or Back).
export function showIntent() {
  for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.intent === state.intent));
}

// answer: the core's intents(); context: { fieldIds, defaults }; onApply(intent) recomputes.
export function initIntents(answer, { fieldIds, defaults }, onApply) {
  const box = $('intents');
  // The four entry points, then post-training (issue 36: the core lists it apart, under post_train).
  const list = [...(answer?.intents ?? []), ...(answer?.post_train ?? [])];
  box.hidden = !list.length;
  // The mode each recipe sets, for the fields that apply to some modes only (panels/job.js coreJob).
  setIntentModes(list.filter((intent) => intent.job?.mode).map((intent) => [intent.id, intent.job.mode]));
  buttons = list.map((intent) => {
    const button = el('button', { type: 'button', 'data-intent': intent.id, 'aria-pressed': 'false', title: intent.question }, intent.label);
    button.addEventListener('click', () => {
      // A fresh start from the intent: the job fields go back to the core's (the intent's recipe fills them).
      for (const key of fieldIds) {
        setField(key, defaults[key]);
        state.touched.delete(key);
      }
      state.intent = intent.id;
      state.fp8 = '';
      $('fp8_recipe').value = '';
      for (const key of Object.keys(state.cluster)) delete state.cluster[key];  // the cluster panel holds this object
      showIntent();
      onApply(intent);
    });
    return button;
  });
  box.replaceChildren(el('span', { class: 'intents-title' }, 'I want to:'), ...buttons);
  showIntent();
}

// The user changed what the intent is about (its mode, framework or engine): the intent steps aside, and the
// values its recipe gave (the answer's recipe fields, as the core read them) stay on the form as the user's own.
export function leaveIntent(result, fieldIds, changed) {
  if (!state.intent) return;
  for (const { key } of result?.recipe?.fields ?? []) {
    if (key === changed || state.touched.has(key) || !fieldIds.includes(key) || !(key in result.job)) continue;
    setField(key, result.job[key]);
    state.touched.add(key);
  }
  state.intent = '';
  showIntent();
}
