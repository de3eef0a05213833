// <vram-calc … plan> or any cluster-* attribute: the cluster planner's time and cost (issue 34, docs/cluster.md)
// under the memory answer. The attributes are the CLI's --cluster-FIELD flags (cluster-tokens="1T",
// cluster-price-per-gpu-hour="2", cluster-fabric="ib-ndr", cluster-concurrency="8", …; the names are the core's,
// options.cluster_fields); plan alone runs the planner with its defaults, as the CLI's --plan. The GPUs are the
// job's (gpu, gpus). The core reads the values (clusterFromText: a bad one is the widget's error, naming it) and
// writes every figure with its range from the leave-one-source-out residuals ("47.2 days (40.6–49.0)"); this module
// only places the core's texts. A job the planner does not time (post-training, a machine without a GPU) shows the
// core's reason in the planner's place.
import { clusterFromText, quoted } from './vramcalc-client.js';
import { el } from './render.js';

const PREFIX = 'cluster-';
export const PLAN_ATTRIBUTE = 'plan';
const attributeOf = (key) => PREFIX + key.replaceAll('_', '-');

// The attribute names the widget observes for the planner, from the core's field list.
export const plannerAttributes = (clusterFields = []) => [PLAN_ATTRIBUTE, ...clusterFields.map(attributeOf)];

// What the element asks of the planner: { fields } (its cluster-* attributes as [field, text] pairs for the core's
// reader), or null when it asks none (no plan attribute, or plan="false", and no cluster-* attribute). plan is a flag
// as the widget's others are: a bare attribute or true / false; anything else comes back as { fields, badPlan }.
export function plannerFields(widget, clusterFields = []) {
  const fields = [];
  for (const key of clusterFields) {
    const value = widget.getAttribute(attributeOf(key));
    if (value !== null) fields.push([key, value]);
  }
  const plan = widget.getAttribute(PLAN_ATTRIBUTE);
  const word = plan?.trim().toLowerCase();
  if (plan !== null && word !== '' && word !== 'true' && word !== 'false') return { fields, badPlan: plan };
  if (!fields.length && (plan === null || word === 'false')) return null;
  return { fields };
}

// The cluster object the one answer's planner part takes, or { error } (the core's, naming the field: the planner's
// place shows it, as it shows the planner's own refusals; the memory answer does not read these fields).
export async function plannerRequest({ fields, badPlan }, signal) {
  if (badPlan !== undefined) {
    return { error: { field: PLAN_ATTRIBUTE, message: `plan: must be true or false (or a bare attribute), got "${await quoted(badPlan, { signal })}"` } };
  }
  const read = await clusterFromText(fields, 'attribute', { signal });
  if (read.cancelled) return { cancelled: true };
  return read.ok ? { cluster: read.cluster } : { error: read.error };
}

export function buildPlanner() {
  return el('div', { class: 'plan', hidden: '', 'aria-label': 'Time and cost on the cluster' });
}

const fact = (key, label, value, sub) => {
  const item = el('div', { class: 'plan-fact', 'data-fact': key });
  item.append(el('span', { class: 'plan-label' }, label), el('strong', { class: 'plan-value' }, value));
  if (sub) item.append(el('span', { class: 'plan-sub' }, sub));
  return item;
};

function trainingFacts(t) {
  const out = [];
  const b = t.budget;
  if (b) {
    out.push(fact('time', `To train ${b.tokens_text}`, b.time_text, b.gpu_hours_text));
    if (b.cost_text) out.push(fact('cost', 'Cost', b.cost_amount_text, b.cost_text));
  }
  out.push(fact('step', 'Step', t.step_text, `${t.tokens_per_step_text} · ${t.layout.text}`),
    fact('throughput', 'Throughput', t.tokens_per_s_per_gpu_text, t.tokens_per_s_text),
    fact('mfu', 'Utilisation', t.mfu_text, t.bound_text));
  return out;
}

function servingFacts(s) {
  return [
    fact('decode', 'Decode', s.tokens_per_s_per_seq_text, s.tokens_per_s_cluster_text),
    fact('ttft', 'First token', s.ttft_text, s.prefill_text),
    fact('token', 'Per step', s.token_text, s.tpot_text || s.layout.text),
  ];
}

// box: buildPlanner()'s element; planner: the one answer's planner part (or { ok: false, error } when its fields could
// not be read), or undefined when none was asked.
export function showPlanner(box, planner) {
  box.hidden = !planner;
  if (!planner) {
    box.replaceChildren();
    return;
  }
  if (planner.ok !== true) {
    const error = planner.error ?? { field: 'cluster', message: 'no answer' };
    box.replaceChildren(el('p', { class: 'plan-refused', 'data-field': error.field }, error.text ?? error.message));
    return;
  }
  const head = el('p', { class: 'plan-head' }, planner.hardware.nodes_text);
  const facts = el('div', { class: 'plan-facts' });
  facts.append(...(planner.workload === 'train' ? trainingFacts(planner.train) : servingFacts(planner.serve)));
  const part = planner.workload === 'train' ? planner.train : planner.serve;
  // Why this layout: the core's sentence, when the planner timed another layout than the job's own (the verdict's).
  const why = planner.workload === 'train' ? planner.recommendation?.chosen_why : part.layout_why;
  box.replaceChildren(head, facts, ...(why ? [el('p', { class: 'plan-why' }, why)] : []),
    ...(part.range_text ? [el('p', { class: 'plan-range' }, part.range_text)] : []));
}
