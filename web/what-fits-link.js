// "What can I run?" (issue 35) in the page's state and its address: whether the list is the view on screen, the
// intent, the order, the context, the runtime and the filters, each as typed (the core reads and names them).
// No DOM here: state.js writes these keys into the link, page-url.js reads them back (panels/what-fits.js).
//
//   view=what-fits   the list is the view (the single-model answer otherwise)
//   wf_intent        chat | serve | finetune ('' = chat, or the page's intent)
//   wf_sort          size | speed | headroom | name ('' = the core's default, size)
//   wf_seq           the context every model is sized at ('' = the intent's default)
//   wf_engine        the runtime (chat: llamacpp, ollama, mlx; serve: vllm, sglang; '' = the intent's)
//   wf_<filter>      family, size, moe, modality, license, min_context, min_tps, runnable

export const WHAT_FITS_VIEW = 'what-fits';
export const FILTERS = ['family', 'size', 'moe', 'modality', 'license', 'min_context', 'min_tps', 'runnable'];
const SETTINGS = ['intent', 'sort', 'seq', 'engine'];

export const freshWhatFits = () => ({ open: false, intent: '', sort: '', seq: '', engine: '', filters: {} });

// The keys and values the link holds for the list (only what is set).
export function whatFitsParams(wf) {
  const out = [];
  if (wf.open) out.push(['view', WHAT_FITS_VIEW]);
  for (const key of SETTINGS) if (wf[key]) out.push([`wf_${key}`, wf[key]]);
  for (const key of FILTERS) if (wf.filters[key]) out.push([`wf_${key}`, wf.filters[key]]);
  return out;
}

// The list's state a link holds (URLSearchParams); keys it does not name are not set.
export function whatFitsFromQuery(q) {
  const wf = freshWhatFits();
  wf.open = q.get('view') === WHAT_FITS_VIEW;
  for (const key of SETTINGS) wf[key] = q.get(`wf_${key}`) ?? '';
  for (const key of FILTERS) if (q.get(`wf_${key}`)) wf.filters[key] = q.get(`wf_${key}`);
  return wf;
}
