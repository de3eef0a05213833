// The model panel's "Checkpoint (exact size)": a .safetensors or .gguf file,
// or model.safetensors.index.json, of which only the header is read (File.slice),
// or the same fetched from the Hub. The core reads the bytes (useCheckpoint)
// and gives every figure shown here, as text; the weights then become exact.
import { attachCheckpoint, detachCheckpoint, MAX_JSON_TEXT, tooLargeMessage } from '../vramcalc-client.js';
import { fetchHubCheckpoint, MAX_SAFETENSORS_HEADER } from '../hub.js';
import { el } from '../render.js';
import { state } from '../state.js';
import { configText, hubIdOfSource } from './model.js';

const $ = (id) => document.getElementById(id);
const GGUF_READ = 16 * 1024 * 1024;  // a GGUF's metadata and tensor infos sit in its first few MB
let onChange = () => {};
let serial = 0;

export const isCheckpointFile = (file) => /\.(safetensors|gguf)$|safetensors\.index\.json$/i.test(file.name);

// The bytes the core needs, and no more: a safetensors file's first 8 + N
// bytes, a GGUF's first 16 MiB, an index (or a bare header) whole.
async function headerOf(file) {
  const first = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const gguf = first.length >= 4 && first[0] === 0x47 && first[1] === 0x47 && first[2] === 0x55 && first[3] === 0x46;
  if (gguf) return { bytes: new Uint8Array(await file.slice(0, GGUF_READ).arrayBuffer()), partial: file.size > GGUF_READ };
  // A length prefix (little-endian, below 1 TB) ends in NUL bytes, which JSON text never holds.
  const lengthPrefix = first.length === 8 && first[5] === 0 && first[6] === 0 && first[7] === 0;
  if (lengthPrefix) {
    const n = new DataView(first.buffer).getBigUint64(0, true);  // which bytes to read, not a figure shown
    if (n > BigInt(MAX_SAFETENSORS_HEADER)) return { bytes: first };  // the core names the fault
    return { bytes: new Uint8Array(await file.slice(0, 8 + Number(n)).arrayBuffer()) };
  }
  // An index (or a bare JSON header) is JSON: over the core's limit it is refused from its size, never read.
  if (file.size > MAX_JSON_TEXT) throw new Error(tooLargeMessage('checkpoint', file.name, file.size));
  return { bytes: new Uint8Array(await file.arrayBuffer()) };
}

function failed(error, text) {
  state.checkpointError = { ...error, configText: text };
  $('checkpoint-status').textContent = '';
  onChange({});
}

// Reads the bytes (a promise of { bytes, label, partial }) and attaches them
// to the current config's model.
// The latest read started: an earlier, slower one (a Hub fetch, a large file) never
// overwrites the checkpoint chosen after it.
let latestRead = 0;
async function attach(reading) {
  const text = configText();
  const mine = ++latestRead;
  if (!text) return failed({ field: 'checkpoint', message: 'checkpoint: choose a model first' }, text);
  $('checkpoint-status').textContent = 'Reading the checkpoint header…';
  let got;
  try {
    got = await reading;
  } catch (e) {
    if (mine !== latestRead) return undefined;
    return failed({ field: 'checkpoint', message: e.message.startsWith('checkpoint') ? e.message : `checkpoint: ${e.message}` }, text);
  }
  if (mine !== latestRead) return undefined;  // a later choice superseded this read
  if (configText() !== text) {  // the model changed meanwhile: this checkpoint is not its
    $('checkpoint-status').textContent = '';
    return undefined;
  }
  const answer = await attachCheckpoint(text, got.bytes);
  if (mine !== latestRead) return undefined;  // the later choice attaches its own
  if (configText() !== text) {  // the model changed while the core read it
    if (answer.ok) detachCheckpoint();
    $('checkpoint-status').textContent = '';
    return undefined;
  }
  if (!answer.ok) {
    const { field, message } = answer.error;
    const plain = got.partial && /truncated/.test(message)
      ? `${message}. This page reads only the first 16 MiB of a GGUF file, and this file's header (metadata and tensor list) does not end within them.`
      : message;
    return failed({ field, message: plain }, text);
  }
  state.checkpoint = { configText: text, label: got.label, answer: answer.checkpoint, serial: ++serial };
  state.checkpointError = null;
  $('checkpoint-status').textContent = '';
  onChange({});
  return undefined;
}

export function openCheckpointFile(file) {
  return attach(headerOf(file).then((got) => ({ ...got, label: file.name })));
}

function remove() {
  state.checkpoint = null;
  state.checkpointError = null;
  detachCheckpoint();  // the next estimate chooses the same config afresh (useConfig)
  $('checkpoint-file').value = '';
  $('checkpoint-status').textContent = '';
  onChange({});
}

export function initCheckpoint(changed) {
  onChange = changed;
  const input = $('checkpoint-file');
  input.addEventListener('change', () => { if (input.files[0]) openCheckpointFile(input.files[0]); });
  const zone = $('checkpoint-box');
  zone.addEventListener('dragover', (e) => { e.preventDefault(); e.stopPropagation(); zone.classList.add('drop'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('drop'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    e.stopPropagation();  // not a config.json: the page's own drop handler must not take it
    zone.classList.remove('drop');
    if (e.dataTransfer.files[0]) openCheckpointFile(e.dataTransfer.files[0]);
  });
  $('checkpoint-remove').addEventListener('click', remove);
  $('checkpoint-hub').addEventListener('click', async () => {
    const id = hubIdOfSource();
    $('checkpoint-hub').disabled = true;
    try {
      await attach(fetchHubCheckpoint(id).then((got) => ({ bytes: got.bytes, label: `${got.id} · ${got.file} (Hub)` })));
    } finally {
      $('checkpoint-hub').disabled = false;
    }
  });
}

// The per-dtype table, from the core's texts.
function dtypeRows(byDtype) {
  return byDtype.map((d) => {
    const row = el('tr');
    row.append(el('th', { scope: 'row' }, d.dtype), el('td', { class: 'num' }, String(d.tensors)),
      el('td', { class: 'num' }, d.elements_text), el('td', { class: 'num' }, d.bytes_text));
    return row;
  });
}

function render() {
  const c = state.checkpoint && !state.checkpointError ? state.checkpoint.answer : null;
  $('checkpoint-result').hidden = !c;
  $('checkpoint-remove').hidden = !state.checkpoint && !state.checkpointError;
  const hub = hubIdOfSource();
  $('checkpoint-hub').hidden = !hub;
  $('checkpoint-hub').textContent = hub ? `Get exact size from the Hub (${hub})` : 'Get exact size from the Hub';
  if (!c) {
    $('checkpoint-summary').textContent = '';
    $('checkpoint-dtypes').querySelector('tbody').replaceChildren();
    $('checkpoint-compare').textContent = '';
    return;
  }
  $('checkpoint-summary').textContent = `${state.checkpoint.label}: ${c.source}${c.gguf_version ? ` v${c.gguf_version}` : ''}` +
    `${c.architecture ? ` (${c.architecture})` : ''} · weights exactly ${c.weight_bytes_text} (${c.weight_text}) · ${c.tensor_count_text} tensors`;
  $('checkpoint-dtypes').hidden = !c.by_dtype.length;
  $('checkpoint-dtypes').querySelector('tbody').replaceChildren(...dtypeRows(c.by_dtype));
  // The core's note on the file (a GGUF of another architecture than the config's: issue 37 I3) follows the comparison.
  $('checkpoint-compare').textContent = [c.config_comparison?.text, c.note].filter(Boolean).join(' ');
}

// Before each estimate: a checkpoint (or its error) of another config is
// dropped, since the core's useConfig for this one has dropped it too. The
// answer is the checkpoint error to show, if any.
export function checkpointFor(text) {
  if (state.checkpoint && state.checkpoint.configText !== text) {
    state.checkpoint = null;
    detachCheckpoint();
    $('checkpoint-file').value = '';
  }
  if (state.checkpointError && state.checkpointError.configText !== text) {
    state.checkpointError = null;
    $('checkpoint-file').value = '';
  }
  render();
  return state.checkpointError;
}

// Tells the deferred panels' cache apart for the same config with another checkpoint.
export const checkpointTag = () => state.checkpoint?.serial ?? 0;
