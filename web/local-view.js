// Your whole machine's answer (issue 32), shared by the page's local panel (panels/local.js) and the
// <vram-calc> widget: for llama.cpp, Ollama and MLX the core's `local` answer (one verdict naming what is
// short, both pools, the layout the runtime runs, decode and prefill tokens/s with their range, the
// warnings) and, for any engine with one (vLLM and SGLang too), the core's launch command with a Copy
// button. Every text is the core's (docs/machine.md#json); this module only lays them out.
import { el } from './render.js';

// Whether the answer has anything for this view: a local runtime's answer, or a launch command.
export const hasLocalView = (result) => Boolean(result?.ok && (result.local?.applies || result.command?.text));

// A Copy button for `text`; it says whether the copy worked, and when the clipboard refuses, selects `target`
// so the reader can copy it by hand.
function copyButton(text, target, label) {
  // "Copy", then "Copied"; what it copies is said to screen readers ("Copy the command").
  const shown = el('span', { class: 'copy-state' }, 'Copy');
  const button = el('button', { type: 'button', class: 'copy' });
  button.append(shown, el('span', { class: 'visually-hidden' }, ` ${label}`));
  let timer = 0;
  button.addEventListener('click', async () => {
    clearTimeout(timer);
    try {
      await navigator.clipboard.writeText(text);
      shown.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = target.getRootNode().getSelection?.() ?? document.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      shown.textContent = 'Selected: copy it';
    }
    timer = setTimeout(() => { shown.textContent = 'Copy'; }, 2000);
  });
  return button;
}

// A block of shell text with its heading and Copy button: the text exactly as the core wrote it.
function codeBlock(kind, text, heading, label) {
  const code = el('code', {}, text);
  const pre = el('pre', { class: 'command-text', 'data-command': kind });
  pre.append(code);
  const head = el('div', { class: 'command-head' });
  head.append(el('span', {}, heading), copyButton(text, code, label));
  const box = el('div', { class: 'command' });
  box.append(head, pre);
  return box;
}

// A pool: its name, then what the job uses of it and, below, what it is (the RAM's size and speed, the GPU's share).
function poolRow(pool) {
  const row = el('tr', { 'data-pool': pool.key, 'data-fits': String(pool.fits) });
  const use = el('td', { class: 'pool-use' });
  use.append(el('span', { class: 'pool-text' }, pool.text));
  if (pool.detail) use.append(el('span', { class: 'pool-detail' }, pool.detail));
  row.append(el('th', { scope: 'row' }, pool.label), use);
  return row;
}

function fact(list, key, term, text) {
  if (!text) return;
  const row = el('div', { class: 'fact', 'data-fact': key });
  row.append(el('dt', {}, term), el('dd', {}, text));
  list.append(row);
}

// The view for one answer (an element), or null when it has none. extra: { moeText } (the page's
// --solve n_cpu_moe answer, in the core's words).
export function localView(result, { moeText = '' } = {}) {
  if (!hasLocalView(result)) return null;
  const local = result.local;
  const view = el('div', { class: 'local-view', 'data-status': local.applies ? local.status : 'command' });
  if (local.applies) {
    // The verdict at the top already says it when it is this one (a GPU or no GPU chosen).
    if (local.verdict !== result.verdict?.text) view.append(el('p', { class: 'local-verdict', 'data-status': local.status }, local.verdict));
    if (local.runtime_error) view.append(el('p', { class: 'local-refusal' }, `Ollama refuses: ${local.runtime_error}`));
    const table = el('table', { class: 'local-pools' });
    table.append(el('caption', { class: 'visually-hidden' }, 'The two pools: GPU memory and system RAM'));
    const body = el('tbody');
    body.append(poolRow(local.gpu), poolRow(local.ram));
    table.append(body);
    const wrap = el('div', { class: 'table-wrap' });
    wrap.append(table);
    view.append(wrap);
    const facts = el('dl', { class: 'local-facts' });
    fact(facts, 'runtime', 'Runtime', local.runtime);
    fact(facts, 'layout', 'Layout', local.layout_text);
    fact(facts, 'fit', 'What it chose', local.fit?.ran ? local.fit.text : '');
    fact(facts, 'n-cpu-moe', 'Smallest --n-cpu-moe', moeText);
    const speed = local.speed ?? {};
    fact(facts, 'decode', 'Decode', speed.known ? speed.decode_text : '');
    fact(facts, 'prefill', 'Prefill', speed.known ? speed.prefill_text : '');
    fact(facts, 'speed-why', speed.known ? 'Why this speed' : 'Speed', speed.why);
    view.append(facts);
    if (local.warnings?.length) {
      const list = el('ul', { class: 'local-warnings' });
      for (const w of local.warnings) list.append(el('li', {}, w));
      view.append(list);
    }
  }
  const c = result.command;
  if (c?.text) {
    view.append(codeBlock(c.kind, c.text, 'Run it', 'the command'));
    if (c.modelfile) view.append(codeBlock('modelfile', c.modelfile, 'Modelfile', 'the Modelfile'));
    if (c.note) view.append(el('p', { class: 'command-note' }, c.note));
  }
  return view;
}
