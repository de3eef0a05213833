// The page's address: the state (state.js) in the URL fragment, compressed
// (link.js), so no server sees it. Older ?query links are read, then the
// address is rewritten to the fragment form. A state too large to share
// (link.js MAX_FRAGMENT) leaves its config out of the link, and the page says
// so beside Copy link, offering the config as a file.
import { state, stateQuery, pastedConfigOf } from './state.js';
import { encodeState, decodeState, MAX_FRAGMENT } from './link.js';
import { MAX_JSON_TEXT, tooLargeMessage, jobFromText, quoted } from './vramcalc-client.js';
import { setField, readJob } from './panels/job.js';
import { showSource, resetHubStatus } from './panels/model.js';
import { applyYours } from './panels/your-gpus.js';
import { showIntent } from './panels/intents.js';
import { syncColocation } from './panels/colocation.js';
import { applyMachine } from './panels/your-machine.js';
import { applyWhatFits } from './panels/what-fits.js';

const $ = (id) => document.getElementById(id);
let page = null;  // { fieldIds, defaults, embedded, clusterPanel() }

// Fields that are options of the page, not state: they stay in the query.
const PAGE_OPTIONS = ['embed'];

export function initUrl(context) {
  page = context;
}

// What a link may carry (issue 37): a pasted config (config=, cfg=; the core's JSON limit bounds it) and saved
// setups (cmp=, each read by the same rule one level down), and otherwise names and values of at most
// MAX_LINK_TEXT characters. No field takes more (a Hub id is 96 + 1 + 96), and a longer value would be laid
// out in its control: a 400,000-character #hf= took 1.1 s in the Hub box alone.
export const MAX_LINK_TEXT = 1000;
const CONFIG_KEYS = new Set(['config', 'cfg']);
function overLong(query, nested = false) {
  for (const [key, value] of query) {
    if (CONFIG_KEYS.has(key)) continue;
    // The models sharing the GPU: up to 16 jobs (the core's limit), each of a field's length.
    const limit = key === 'machine_jobs' ? 16 * MAX_LINK_TEXT : MAX_LINK_TEXT;
    if (key === 'cmp' && !nested) {
      const inner = overLong(new URLSearchParams(value), true);
      if (inner) return inner;
    } else if (key.length > MAX_LINK_TEXT || value.length > limit) {
      return [key, value];
    }
  }
  return null;
}
// The reason a link breaks that rule, quoted as the core quotes input; null when it does not.
async function linkRefusal(query) {
  const bad = overLong(query);
  if (!bad) return null;
  const [key, value] = bad;
  return key.length > MAX_LINK_TEXT ? `the link names a field '${await quoted(key)}' longer than any field's name; ask for the link again`
    : `the link's ${key}= value '${await quoted(value)}' is longer than any field takes; ask for the link again`;
}

// The state the address holds: the fragment's, else an older link's query.
// Resolves to { query, legacy } (legacy: read from ?query, to be rewritten);
// a damaged fragment, or one that breaks the rule above, resolves to an empty state with `error` saying why.
export async function readLocation() {
  let query;
  let legacy = false;
  try {
    query = await decodeState(location.hash, 4 * MAX_JSON_TEXT);
  } catch (e) {
    return { query: new URLSearchParams(), legacy: false, error: e.message };
  }
  if (!query) {
    query = new URLSearchParams(location.search);
    for (const key of PAGE_OPTIONS) query.delete(key);
    legacy = [...query.keys()].length > 0;
  }
  const error = await linkRefusal(query);
  return error ? { query: new URLSearchParams(), legacy: false, error } : { query, legacy };
}

export async function applyQuery(q) {
  const { fieldIds, defaults } = page;
  state.touched = new Set(fieldIds.filter((key) => q.has(key)));
  // The link's values as the core's one value parser reads them (core/api/job_text.hpp), so a
  // checkbox shows the core's reading of "false"; a value it refuses stays as typed, for the core to name.
  const read = await jobFromText(fieldIds.filter((key) => q.has(key)).map((key) => [key, q.get(key)]), 'url');
  const given = read.ok ? read.job : {};
  for (const key of fieldIds) setField(key, key in given ? given[key] : q.has(key) ? q.get(key) : defaults[key]);
  const s = state.source;
  s.kind = 'catalog';
  s.modelId = q.get('model') ?? 'llama-3-8b';
  s.pasted = '';
  s.hubId = '';
  s.hubText = '';
  resetHubStatus();
  const pasted = pastedConfigOf(q);
  s.linkError = null;
  if (pasted !== null) {
    s.kind = 'paste';
    // A config over the core's limit is refused here, before it reaches the text box or the core.
    const tooLarge = pasted?.length > MAX_JSON_TEXT;
    s.pasted = pasted === undefined || tooLarge ? '' : pasted;
    if (pasted === undefined) s.linkError = 'config: the link\'s cfg= value is not a valid encoded config.json';
    if (tooLarge) s.linkError = tooLargeMessage('config', 'the link\'s config');
  } else if (q.has('hf')) {
    s.kind = 'hub';
    s.hubId = q.get('hf');
  }
  applyYours(q);
  state.intent = q.get('intent') ?? '';
  state.fp8 = q.get('fp8_recipe') ?? '';
  if ($('fp8_recipe')) $('fp8_recipe').value = state.fp8;
  showIntent();
  state.machineJobs = q.get('machine_jobs') ?? '';
  syncColocation();
  applyMachine(q);
  for (const key of Object.keys(state.cluster)) delete state.cluster[key];  // the panel holds this object
  for (const [key, value] of q) if (key.startsWith('cl_')) state.cluster[key.slice(3)] = value;
  page.clusterPanel()?.sync();
  state.compare = q.getAll('cmp').slice(0, 4);
  applyWhatFits(q);
  showSource();
}

// The address for the state now: the page's own path, ?embed=1 when framed,
// the state in the fragment. Over MAX_FRAGMENT, the config is left out.
async function addressFor() {
  const job = readJob();
  let fragment = await encodeState(stateQuery(job));
  const length = fragment.length;
  if (length > MAX_FRAGMENT) {
    fragment = await encodeState(stateQuery(job, { withConfig: false }));
    if (fragment.length > MAX_FRAGMENT) fragment = '';
  }
  return { url: `${location.pathname}${page.embedded ? '?embed=1' : ''}${fragment ? `#${fragment}` : ''}`,
    complete: length <= MAX_FRAGMENT, length };
}

// Says when the link leaves the config out, and offers the config as a file.
function showShareNote({ complete, length }) {
  const note = $('share-note');
  const download = $('share-config');
  note.hidden = complete;
  download.hidden = complete;
  if (complete) return;
  note.textContent = `This pasted config is too large for a link: the link would be ${length} characters long, and ` +
    `browsers' address bars cut links past ${MAX_FRAGMENT}. The link keeps the job without the config; ` +
    'send the config as a file (below) or use Export JSON.';
}

// A new history entry at once; replacing the current one (while typing)
// waits for a pause, since compressing and each history call cost time.
// Resolves when the address is written (Copy link awaits it).
let urlTimer = 0;
let serial = 0;
let pushWanted = false;  // a new entry was asked for and not yet written: a newer write makes it
export function writeUrl(push, now = push) {
  clearTimeout(urlTimer);
  const mine = ++serial;
  pushWanted ||= push;
  const write = async () => {
    const address = await addressFor();
    if (mine !== serial) return;  // a newer state is on its way
    showShareNote(address);
    const pushing = pushWanted;
    pushWanted = false;
    if (address.url === `${location.pathname}${location.search}${location.hash}`) return;
    if (pushing) history.pushState(null, '', address.url);
    else history.replaceState(null, '', address.url);
  };
  return new Promise((resolve) => {
    if (now) write().finally(resolve);
    else urlTimer = setTimeout(() => write().finally(resolve), 150);
  });
}

// Drops writes not yet made (Back or Forward has just set the address).
export function cancelUrlWrites() {
  clearTimeout(urlTimer);
  serial++;
  pushWanted = false;
}

// The address once the latest state is in it.
export async function currentAddress() {
  await writeUrl(false, true);
  return location.href;
}
