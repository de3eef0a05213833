// The Hugging Face Hub: model ids, config.json fetches (kept for offline use
// when they are JSON), and checkpoint metadata without the weights. Every
// download is read through a byte counter and stops at the core's own limit
// (docs/hostile-input.md), so a huge answer is never read whole.
import { MAX_JSON_TEXT, tooLargeMessage, quoted } from './vramcalc-client.js';
import { readAll } from './streams.js';

// The Hub's rule for a repository id (huggingface_hub, utils/_validators.py,
// validate_repo_id): letters, digits, '-', '_' and '.', starting and ending
// with a letter, digit or '_', at most 96 characters, no '--' or '..', not
// ending in '.git'. Only namespace/name ids are taken: no '.' or '..' segment,
// so an id can never name another path on the Hub.
const HUB_PART = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$/;
export const isHubId = (id) => {
  const parts = id.split('/');
  return parts.length === 2 && parts.every((p) => HUB_PART.test(p)) && !/--|\.\./.test(id) && !id.endsWith('.git');
};

// "Qwen/Qwen2.5-7B", or any huggingface.co address of the model (its page,
// a file in it, a tree), as the model id; null when it is none of these.
export function hubIdOf(text) {
  let id = text.trim();
  const url = id.match(/^(?:https?:\/\/)?(?:www\.)?(?:huggingface\.co|hf\.co)\/(.*)$/i);
  if (url) {
    id = url[1].replace(/[?#].*$/, '').replace(/\/(?:tree|blob|resolve|raw|commits?|discussions|files)(?:\/.*)?$/, '')
      .replace(/\/+$/, '');
  }
  return isHubId(id) ? id : null;
}

// The body of a response, read through a byte counter: past `cap` bytes the
// download stops (the stream is cancelled) and `tooLarge()` is thrown.
export async function readCapped(response, cap, tooLarge) {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > cap) {
    response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const bytes = await readAll(response.body, cap);
  if (bytes === null) throw tooLarge();
  return bytes;
}

// Configs fetched from the Hub are kept, so a model seen once works offline:
// only JSON objects (an error page or a proxy's HTML is never kept), under 512 KB each.
const SAVED_MAX = 512 * 1024;
const savedKey = (id) => `vramcalc-hub:${id}`;
function isJsonObject(text) {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
function saveHubConfig(id, text) {
  try {
    if (text.length < SAVED_MAX && isJsonObject(text)) localStorage.setItem(savedKey(id), text);
  } catch { /* storage full or disabled: the page still works online */ }
}
function savedHubConfig(id) {
  try { return localStorage.getItem(savedKey(id)); } catch { return null; }
}

// The config of the catalog model with this Hub id (any case), or null.
function catalogHubConfig(id, catalogModels) {
  const key = String(id ?? '').toLowerCase();
  const known = catalogModels.find((m) => m.hf_id && m.hf_id.toLowerCase() === key);
  return known ? { id: known.hf_id, text: JSON.stringify(known.config), saved: false, catalog: known.name } : null;
}

// A config for a Hub id without the Hub: the copy kept when it was last fetched,
// else the catalog's; null if neither.
export function hubConfigWithoutHub(id, catalogModels) {
  const kept = savedHubConfig(id);
  return kept !== null ? { id, text: kept, saved: true } : catalogHubConfig(id, catalogModels);
}

// Resolves to { id, text, saved, catalog }: saved, a kept copy used because the Hub was unreachable;
// catalog, the name of the catalog model with this Hub id whose config stands in when the Hub cannot
// answer (offline, or a gated repository such as meta-llama's), with `reason` saying why.
export async function fetchHubConfig(input, catalogModels = []) {
  const id = hubIdOf(input);
  // What was typed, quoted as the core quotes input (a 400,000-character #hf= froze the page: issue 37 H1).
  if (!id) throw new Error(`Hugging Face id: '${await quoted(input.trim())}' is not a model id like Qwen/Qwen2.5-7B or its huggingface.co address`);
  const offline = (reason) => {
    const stored = hubConfigWithoutHub(id, catalogModels);
    if (stored) return { ...stored, reason: reason[0].toUpperCase() + reason.slice(1) };
    throw new Error(`Hugging Face id: ${reason}; paste the config.json instead`);
  };
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return offline('you are offline');
  let response;
  try {
    response = await fetch(`https://huggingface.co/${id}/resolve/main/config.json`);
  } catch {
    return offline('could not reach huggingface.co (offline or blocked)');
  }
  if (response.status === 401 || response.status === 403) {
    const known = catalogHubConfig(id, catalogModels);
    if (known) return { ...known, reason: `${known.id} is gated on the Hub` };
    throw new Error(`Hugging Face id: ${id} is gated or private; paste its config.json instead`);
  }
  if (response.status === 404) throw new Error(`Hugging Face id: no model ${id} on the Hub`);
  if (!response.ok) throw new Error(`Hugging Face id: the Hub answered HTTP ${response.status}`);
  const bytes = await readCapped(response, MAX_JSON_TEXT, () => new Error(tooLargeMessage('Hugging Face id', `${id}'s config.json`)));
  const text = new TextDecoder().decode(bytes);
  saveHubConfig(id, text);
  return { id, text, saved: false };
}

// Exact weight bytes from the Hub without downloading weights: the sharded
// checkpoint's model.safetensors.index.json (metadata.total_size), else the
// single model.safetensors file's header by two Range requests (its first 8
// bytes give the JSON header's length N, then bytes 8..8+N-1). Resolves to
// { id, file, bytes } (a Uint8Array for useCheckpoint); errors read like the
// config fetch's.
// Past the core's 8 MB JSON limit a header is never read or fetched: the core names the fault from its length alone.
export const MAX_SAFETENSORS_HEADER = 8_000_000;
export async function fetchHubCheckpoint(input) {
  const id = hubIdOf(input ?? '');
  if (!id) throw new Error(`checkpoint: '${await quoted(String(input ?? '').trim())}' is not a Hugging Face model id`);
  const instead = 'open the checkpoint file (or its model.safetensors.index.json) instead';
  if (typeof navigator !== 'undefined' && navigator.onLine === false) throw new Error(`checkpoint: you are offline; ${instead}`);
  const get = async (file, range) => {
    let response;
    try {
      response = await fetch(`https://huggingface.co/${id}/resolve/main/${file}`, range ? { headers: { Range: `bytes=${range}` } } : {});
    } catch {
      throw new Error(`checkpoint: could not reach huggingface.co (offline or blocked); ${instead}`);
    }
    if (response.status === 401 || response.status === 403) throw new Error(`checkpoint: ${id} is gated or private; ${instead}`);
    if (response.status === 404) return response;
    if (!response.ok) throw new Error(`checkpoint: the Hub answered HTTP ${response.status} for ${file}`);
    // A server that ignores Range would send the whole file (gigabytes): refuse it.
    if (range && response.status !== 206) throw new Error(`checkpoint: the Hub sent all of ${file} instead of the bytes asked for; ${instead}`);
    return response;
  };
  const index = await get('model.safetensors.index.json');
  if (index.ok) {
    const bytes = await readCapped(index, MAX_JSON_TEXT, () => new Error(`${tooLargeMessage('checkpoint', `${id}'s model.safetensors.index.json`)}; ${instead}`));
    return { id, file: 'model.safetensors.index.json', bytes };
  }
  const head = await get('model.safetensors', '0-7');
  if (head.status === 404) {
    throw new Error(`checkpoint: ${id} has neither model.safetensors.index.json nor model.safetensors on the Hub; ${instead}`);
  }
  const first = await readCapped(head, 8, () => new Error(`checkpoint: the Hub sent more than the 8 bytes asked for; ${instead}`));
  if (first.length !== 8) throw new Error(`checkpoint: the Hub sent ${first.length} bytes for model.safetensors' header length`);
  // The header's length (8 bytes, little-endian): the byte range to ask for next, not a figure shown.
  const n = new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true);
  if (n === 0n || n > BigInt(MAX_SAFETENSORS_HEADER)) return { id, file: 'model.safetensors', bytes: first };  // the core names the fault
  const rest = await get('model.safetensors', `8-${7n + n}`);
  // get() passes a 404 through: here it means the file went away between the two requests.
  if (!rest.ok) throw new Error(`checkpoint: the Hub answered HTTP ${rest.status} for model.safetensors' header; ${instead}`);
  const header = await readCapped(rest, Number(n), () => new Error(`checkpoint: the Hub sent more than the ${n} header bytes asked for; ${instead}`));
  const bytes = new Uint8Array(8 + header.length);
  bytes.set(first);
  bytes.set(header, 8);
  return { id, file: 'model.safetensors', bytes };
}
