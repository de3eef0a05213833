// "On your machine" (issue 32): under llama.cpp, Ollama and MLX (Run locally), the core's answer for the whole
// machine (local-view.js: the verdict naming what is short, GPU memory and system RAM, the layout the runtime
// runs, --fit's choice, decode and prefill tokens/s with their range, the warnings) and the command that runs it,
// copyable; under vLLM and SGLang, their launch line. For a mixture-of-experts model under llama.cpp on a GPU,
// the smallest --n-cpu-moe that fits (the core's --solve n_cpu_moe), asked by page-compute.js after the totals.
import { localView } from '../local-view.js';

const $ = (id) => document.getElementById(id);

// Whether to ask the core for the smallest --n-cpu-moe: llama.cpp, a GPU, routed experts.
export const wantsMoe = (result) => Boolean(result?.ok && result.local?.applies && result.job.engine === 'llamacpp'
  && !result.local.machine.cpu_only && result.local.machine.gpus > 0 && result.model?.is_moe);

// result: the estimate on screen (or null); moe: the core's n_cpu_moe answer for it, when asked.
export function renderLocal(result, moe = null) {
  const panel = $('local-panel');
  // The smallest N, unless --fit already chose it (its line says so).
  const chosen = result?.local?.fit?.ran && moe?.ok && moe.answer === result.local.n_cpu_moe;
  const view = result ? localView(result, { moeText: moe?.ok && !chosen ? moe.text : '' }) : null;
  panel.hidden = !view;
  if (!view) {
    $('local-body').replaceChildren();
    return;
  }
  $('local-title').textContent = result.local.applies ? 'On your machine' : 'The command';
  // The launch line, by the id the page's tests and links to it use.
  view.querySelector('pre.command-text code')?.setAttribute('id', 'command');
  $('local-body').replaceChildren(view);
}
