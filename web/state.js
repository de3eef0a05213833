// The page's one state object and its URL form. Panels read and write
// `state`; app.js turns it into core calls.
export const state = {
  // Where the model comes from: the catalog, a pasted config, or the Hub.
  source: { kind: 'catalog', modelId: 'llama-3-8b', pasted: '', hubId: '', hubText: '', hubSaved: false },
  // Job values from the URL that no form control can hold (a checkbox given
  // "yes"): sent to the core as typed until the control is touched, so the
  // error names the field instead of silently meaning false.
  rawOverrides: {},
  // Job fields the user set (URL or control): the only ones sent to the core,
  // so presets and defaults fill the rest as they do for the CLI.
  touched: new Set(),
  fitsGpu: '',         // GPU the "what fits" answers are for ('' = automatic)
  customGpuGib: '',
  lineGpu: '',         // GPU id drawn as a capacity line on the charts ('' = automatic)
  compare: [],         // saved setups, each a query string
  cluster: {},         // cluster planner fields the user set (gpu, gpus, fabric, tokens, price_per_gpu_hour, concurrency)
  result: null,        // last good estimate and its counterpart
  other: null,
};

// base64url of UTF-8 text, in chunks: spreading a large byte array into
// String.fromCharCode overflows the argument limit (~100 KB).
export function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
export function unbase64url(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

// The URL query for the state: the model source, the job fields the user set,
// the custom GPU, the chart line, the "what fits" GPU and the comparison list.
export function stateQuery(job) {
  const q = new URLSearchParams();
  const s = state.source;
  if (s.kind === 'catalog') q.set('model', s.modelId);
  if (s.kind === 'hub') q.set('hf', s.hubId);
  if (s.kind === 'paste') q.set('cfg', base64url(s.pasted));
  for (const [key, value] of Object.entries(job)) q.set(key, String(value));
  if (state.customGpuGib !== '') q.set('custom_gpu_gib', state.customGpuGib);
  if (state.lineGpu) q.set('line', state.lineGpu);
  if (state.fitsGpu) q.set('fit', state.fitsGpu);
  for (const c of state.compare) q.append('cmp', c);
  for (const [key, value] of Object.entries(state.cluster)) q.set(`cl_${key}`, value);
  return q;
}
