// Post-training (issue 36: GRPO, PPO, RLOO, DPO, KTO, ORPO): the step as the core lays it out
// (docs/posttrain.md, the estimate's `posttrain`): the phases in order with their parts, the
// persistent band under every phase, the peak phase named, the rollout engine awake and asleep
// (or the vLLM server's own GPUs), the inverse answers (the longest completion, the most
// completions per prompt) and the core's notes. Every number and text is the core's; the page
// adds words around them. Its fields are the job form's (web/page.html #posttrain-fields).
import { modeTitle } from '../vramcalc-client.js';
import { el, renderPhases } from '../render.js';

const $ = (id) => document.getElementById(id);
const engineWords = { vllm: 'vLLM', transformers_generate: 'the policy itself (transformers generate)' };
const sleepWords = ['stays awake while the policy trains (sleep_mode 0)',
  'sleeps at level 1 while the policy trains: weights to host RAM, KV freed',
  'sleeps at level 2 while the policy trains: weights and KV freed'];

const partsText = (parts) => parts.filter((p) => p.bytes > 0).map((p) => `${p.label} ${p.text}`).join(' · ');

// The rollout engine: how it runs, what it holds generating and while the policy trains; its reason, unless a
// note already gives it.
function rollout(r, notes) {
  if (r.engine === 'none') return [];
  const how = r.engine === 'vllm'
    ? `${engineWords.vllm}, ${r.vllm_mode === 'server' ? 'a server on GPUs of its own' : `colocated: ${r.share} of the GPU, ${r.budget_text}`}; it ${sleepWords[r.sleep_mode] ?? `sleep_mode ${r.sleep_mode}`}.`
    : `${engineWords[r.engine] ?? r.engine}.`;
  const out = [el('h4', {}, 'The rollout engine'), el('p', { class: 'rollout-how' }, `Completions come from ${how}`)];
  const list = el('ul', { class: 'notes rollout' });
  if (r.awake_parts.length) list.append(el('li', { 'data-rollout': 'awake' }, `Generating: ${r.awake_text} (${partsText(r.awake_parts)})`));
  if (r.engine === 'vllm' && r.vllm_mode !== 'server') {
    list.append(el('li', { 'data-rollout': 'asleep' }, r.asleep_parts.length
      ? `While the policy trains: ${r.asleep_text} (${partsText(r.asleep_parts)})` : 'While the policy trains: nothing on the GPU'));
  }
  if (r.server) {
    list.append(el('li', { 'data-rollout': 'server' },
      `The vLLM server's own ${r.server.gpus} GPU${r.server.gpus === 1 ? '' : 's'}: ${r.server.total_text} on each, ${r.server.fits ? '✓ fits' : '✗ does not fit'}`));
  }
  if (r.why && !notes.some((n) => n.includes(r.why))) list.append(el('li', { class: 'hint' }, r.why));
  out.push(list);
  return out;
}

// The inverse answers the core gives with a GPU (posttrain.limits).
function limits(post, result) {
  const out = [el('h4', {}, 'How far it stretches on your GPU')];
  if (post.limits.length) {
    const list = el('ul', { class: 'notes limits' });
    for (const l of post.limits) {
      list.append(el('li', { 'data-question': l.question, 'data-found': String(l.found) },
        l.found ? `${l.text} (${l.answer_label}: ${l.total_at_text} per GPU)` : l.text));
    }
    out.push(list);
  } else if (result.verdict.status === 'none') {
    out.push(el('p', { class: 'hint' }, 'Choose your GPU (at the top) for the longest completion and the most completions per prompt that fit.'));
  } else {
    return [];
  }
  return out;
}

export function renderPosttrain(result) {
  const box = $('posttrain-panel');
  const post = result.posttrain;
  box.hidden = !post;
  if (!post) {
    box.replaceChildren();
    return;
  }
  const peak = post.phases.find((p) => p.peak);
  const overhead = result.terms.find((t) => t.key === 'overhead');
  const phases = el('ol', { class: 'phases', 'aria-label': 'The phases of one step, in order' });
  renderPhases(phases, post);
  const children = [
    el('h3', { id: 'posttrain-title' }, `One ${modeTitle(post.mode)} step per GPU, phase by phase`),
    el('p', { class: 'posttrain-peak', 'data-peak': post.peak_phase },
      peak ? `Peak: ${post.peak_label}, ${peak.text}; the total per GPU, ${result.total_text}, adds ${overhead ? overhead.text : 'the overhead'} of allocator slack and CUDA context.` : ''),
    el('p', { class: 'hint persistent' }, `Under every phase (the persistent part, ${post.persistent.text}): ${partsText(post.persistent.parts)}.`),
    phases,
    ...rollout(post.rollout, post.notes),
  ];
  if (post.notes.length) {
    const notes = el('ul', { class: 'notes posttrain-notes' });
    for (const n of post.notes) notes.append(el('li', {}, n));
    children.push(notes);
  }
  if (post.cpu_bytes > 0) children.push(el('p', { class: 'hint' }, `Host RAM besides: ${post.cpu_text}.`));
  children.push(...limits(post, result));
  box.replaceChildren(...children);
}
