// The action buttons under the results: copy the link, export (JSON, CSV,
// Markdown, PNG) and the Embed snippet. They read the page's state; the
// exports are disabled while the figures are stale (panels/results.js showState).
import { state, stateQuery } from '../state.js';
import { readJob } from './job.js';
import { configText, modelName } from './model.js';
import { exportJson, exportCsv, exportMarkdown, exportPng } from './export.js';
import { embedSnippet } from '../embed.js';

const $ = (id) => document.getElementById(id);

export function initActions() {
  const exportArgs = () => ({ name: modelName(), configText: configText(), result: state.result, other: state.other, link: location.href,
    request: readJob({ forCore: true }) });
  $('share').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $('share').textContent = 'Link copied';
    } catch {
      $('share').textContent = 'Copy the address bar';
    }
    setTimeout(() => { $('share').textContent = 'Copy link'; }, 2000);
  });
  // The buttons are disabled while the figures are stale (panels/results.js showState).
  $('export').addEventListener('click', () => state.result && exportJson(exportArgs()));
  $('export-csv').addEventListener('click', () => state.result && exportCsv(exportArgs()));
  $('export-md').addEventListener('click', () => state.result && exportMarkdown(exportArgs()));
  $('export-png').addEventListener('click', () => state.result && exportPng(exportArgs()));

  $('embed').addEventListener('click', () => {
    const open = $('embed-box').hidden;
    $('embed-box').hidden = !open;
    $('embed').setAttribute('aria-expanded', String(open));
    // The widget gets the fields the user set, as the core reads them (the custom GPU as device_gib).
    const changed = readJob({ forCore: true });
    const query = stateQuery(readJob());
    query.delete('cmp');
    $('embed-code').value = embedSnippet({ here: new URL('./', location.href).href,
      modelId: state.source.kind === 'catalog' ? state.source.modelId : null, changed, query });
  });
}
