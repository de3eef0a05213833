// The action buttons under the results: copy the link, export (JSON, CSV,
// Markdown, PNG) and the Embed snippet. They read the page's state once the
// latest input's figures are on screen; the exports are disabled while the
// figures are stale (panels/results.js showState). A pasted config too large
// for a link is offered as a file here (page-url.js says so).
import { state, stateQuery } from '../state.js';
import { readJob } from './job.js';
import { configText, modelName } from './model.js';
import { download, exportJson, exportCsv, exportMarkdown, exportPng } from './export.js';
import { embedSnippet } from '../embed.js';
import { encodeState } from '../link.js';
import { currentAddress } from '../page-url.js';
import { settledResult } from '../page-compute.js';

const $ = (id) => document.getElementById(id);

export function initActions() {
  // The figures of the latest input (waiting for its answer if one is on its way), or null.
  const exportArgs = async () => {
    const result = await settledResult();
    if (!result) return null;
    return { name: modelName(), configText: configText(), result, other: state.other, link: await currentAddress(),
      request: readJob({ forCore: true }) };
  };
  const exporter = (id, write) => $(id).addEventListener('click', async () => {
    const args = await exportArgs();
    if (args) await write(args);
  });
  $('share').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(await currentAddress());
      $('share').textContent = 'Link copied';
    } catch {
      $('share').textContent = 'Copy the address bar';
    }
    setTimeout(() => { $('share').textContent = 'Copy link'; }, 2000);
  });
  $('share-config').addEventListener('click', () =>
    download('config.json', new Blob([state.source.pasted], { type: 'application/json' })));
  exporter('export', exportJson);
  exporter('export-csv', exportCsv);
  exporter('export-md', exportMarkdown);
  exporter('export-png', exportPng);

  $('embed').addEventListener('click', async () => {
    const open = $('embed-box').hidden;
    $('embed-box').hidden = !open;
    $('embed').setAttribute('aria-expanded', String(open));
    if (!open) return;
    // The widget gets the fields the user set, as the core reads them (the custom GPU as device_gib).
    const changed = readJob({ forCore: true });
    const query = stateQuery(readJob());
    query.delete('cmp');
    $('embed-code').value = embedSnippet({ here: new URL('./', location.href).href,
      modelId: state.source.kind === 'catalog' ? state.source.modelId : null, changed, fragment: await encodeState(query) });
  });
}
