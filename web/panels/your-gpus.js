// "Your GPUs" (issue 23): one control at the top of the page, a catalog GPU
// (or a custom memory size) and a count, with the GB / GiB switch. It is the
// one GPU choice of the page: sent to the core as the job's `gpu` (or
// `device_gb` / `device_gib`), `gpus` and `units`, so the core's verdict, the
// GPU table, the matrix, "what fits", the chart line and the cluster planner
// all answer for it. Remembered between visits (localStorage
// 'vramcalc.yourGpus'); kept in the URL as gpu=, gpus=, device_gb= /
// device_gib=, ram_gb= and units= (older links' custom_gpu_gib= and fit= still read). The system RAM
// (issue 32) is the machine's too: sent as the question's machine.ram_gb.
// Also the four entry points (the core's intents) and the verdict line.
import { state, yourJobFields } from '../state.js';
import { gpusIn } from '../vramcalc-client.js';
import { el } from '../render.js';
import { machineControl } from './your-machine.js';

const $ = (id) => document.getElementById(id);
export const REMEMBERED = 'vramcalc.yourGpus';
const CUSTOM = 'custom';
const CPU_ONLY = 'cpu';  // no GPU: the core's gpu "cpu" (llama.cpp, Ollama; issue 32)
const kindTitles = { consumer: 'Consumer', workstation: 'Workstation', datacenter: 'Data centre', apple: 'Apple', other: 'Other' };

const fresh = () => ({ gpu: '', count: '1', customGb: '' });

// The core's GPU ids (initYours): what may be remembered between visits.
const catalogIds = new Set();
// A GPU choice worth remembering: a catalog id, "custom" or none; anything else (an id from an old or
// mistyped link, a 2 MB one: issue 37 L4) lasts only as long as its link.
const rememberable = (gpu) => gpu === '' || gpu === CUSTOM || gpu === CPU_ONLY || catalogIds.has(gpu);
// A stored count or size: text or a number, as typed; anything else (an object: issue 37 L5) is none.
const storedText = (value, none) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : none);

// What the visitor chose last time, or nothing chosen. Storage is another page's to write too (any script of
// this origin): only what remember() would have written is taken.
function remembered() {
  try {
    const saved = JSON.parse(localStorage.getItem(REMEMBERED) ?? 'null');
    if (!saved || typeof saved !== 'object') return { yours: fresh(), units: 'gb' };
    const gpu = typeof saved.gpu === 'string' && rememberable(saved.gpu) ? saved.gpu : '';
    return {
      yours: { gpu, count: storedText(saved.count, '1'), customGb: storedText(saved.customGb, '') },
      units: saved.units === 'gib' ? 'gib' : 'gb',
    };
  } catch {
    return { yours: fresh(), units: 'gb' };  // storage refused (private mode) or damaged: nothing remembered
  }
}

function remember() {
  const { gpu, count, customGb } = state.yourGpus;
  const yours = rememberable(gpu) ? { gpu, count, customGb } : { gpu: '', count, customGb: '' };
  try {
    localStorage.setItem(REMEMBERED, JSON.stringify({ ...yours, units: state.units }));
  } catch { /* storage refused: the choice lasts this visit */ }
}

// Your GPUs as a link states them: the remembered choice, then each key the link gives.
export function yoursFromQuery(q, base = remembered()) {
  const yours = { ...base.yours };
  let units = base.units;
  const custom = ['device_gb', 'device_gib', 'custom_gpu_gib'].find((key) => q.has(key) && q.get(key) !== '');
  if (q.has('gpu')) yours.gpu = q.get('gpu');
  else if (custom) yours.gpu = CUSTOM;
  // "Another GPU" with no size typed yet (gpu=custom alone; issue 37 L7): the box opens empty.
  if (q.get('gpu') === CUSTOM && !custom) yours.customGb = '';
  else if (q.get('fit') && q.get('fit') !== CUSTOM) yours.gpu = q.get('fit');  // older links: the "what fits" GPU
  if (custom) {
    yours.customGb = q.get(custom);
    if (custom !== 'device_gb') units = 'gib';  // the size was typed in GiB: the page says it so
  }
  if (q.has('gpus')) yours.count = q.get('gpus');
  if (q.has('units')) units = q.get('units');
  return { yours, units };
}

export function applyYours(q) {
  const { yours, units } = yoursFromQuery(q);
  state.yourGpus = yours;
  state.units = units;
  showYours();
}

// The control that shows an error about one of these fields.
export function yourControl(key) {
  const controls = { gpu: 'gpu', gpus: 'gpus', device_gb: 'your-mem', device_gib: 'your-mem', units: 'units-gb' };
  // own keys only: job.constructor names none (issue 37 L1); the machine's RAM fields are its panel's
  return Object.hasOwn(controls, key) ? $(controls[key]) : machineControl(key);
}

let listedUnits = '';
function fillGpus(catalog, units) {
  const select = $('gpu');
  const groups = new Map();
  for (const g of catalog) {
    const kind = kindTitles[g.kind] ?? kindTitles.other;
    if (!groups.has(kind)) groups.set(kind, el('optgroup', { label: kind }));
    groups.get(kind).append(new Option(`${g.name} · ${g.capacity_text}`, g.id));
  }
  select.replaceChildren(new Option('Not chosen: recommend one', ''), ...groups.values(),
    new Option('Another GPU: type its memory', CUSTOM), new Option('No GPU: CPU only (llama.cpp, Ollama)', CPU_ONLY));
  listedUnits = units;
}

function showYours() {
  const y = state.yourGpus;
  const select = $('gpu');
  select.value = y.gpu;
  // A GPU id the list does not have (an old or mistyped link) stays as given, for the core to name it
  // (its error quotes the id, bounded); the option's label does not repeat it (a 2 MB id: issue 37 L4).
  if (select.value !== y.gpu) select.append(new Option('A GPU not in the list (from the link)', y.gpu)), select.value = y.gpu;
  $('gpus').value = y.count;
  $('your-mem-box').hidden = y.gpu !== CUSTOM;
  $('your-mem').value = y.customGb;
  $('your-mem-label').textContent = `Its memory (${state.units === 'gib' ? 'GiB' : 'GB'})`;
  $(state.units === 'gib' ? 'units-gib' : 'units-gb').checked = true;
  if (listedUnits && listedUnits !== state.units) relabel();
}

let relabelling = null;
async function relabel() {
  const units = state.units;
  if (relabelling === units) return;
  relabelling = units;
  const answer = await gpusIn(units === 'gib' ? 'gib' : 'gb');
  relabelling = null;
  if (!Array.isArray(answer) || units !== state.units) return;
  const keep = $('gpu').value;
  fillGpus(answer, units);
  $('gpu').value = keep;
  if ($('gpu').value !== keep) showYours();
}

// gpuCatalog: the core's gpus() (capacities in GB); onChange({ push }) recomputes.
export function initYours(gpuCatalog, onChange) {
  for (const g of gpuCatalog) catalogIds.add(g.id);
  fillGpus(gpuCatalog, 'gb');
  const box = $('your-gpus');
  const changed = (e) => {
    const y = state.yourGpus;
    if (e.target.id === 'gpu') y.gpu = e.target.value;
    else if (e.target.id === 'gpus') y.count = e.target.value.trim();
    else if (e.target.id === 'your-mem') y.customGb = e.target.value.trim();
    else if (e.target.name === 'units-choice') state.units = e.target.value;
    else return;
    showYours();
    remember();
    onChange({ push: e.type === 'change' });
  };
  box.addEventListener('change', changed);
  box.addEventListener('input', (e) => { if (e.target.type === 'number') changed(e); });
}

// The core's verdict for your GPUs, in one line, coloured by its status, after the model's name (a link
// to the model search); the GPU's capacity once, as the GPU's, with where it comes from (the core's
// capacity line: under vLLM / SGLang the engine's budget and pool are the engine's view, said elsewhere).
export function renderVerdict(result, name = '') {
  const v = result.verdict;
  const line = $('verdict');
  line.dataset.status = v?.status ?? 'none';
  line.closest('.verdict-line').dataset.status = line.dataset.status;
  line.textContent = v ? (v.status === 'none' ? v.headline || v.text : v.text) : '';
  $('model-jump').textContent = name;
  $('gpu-source').textContent = result.capacity?.text ?? '';
}