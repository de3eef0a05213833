// The C++ core (vramcalc.wasm) in a dedicated Web Worker, so the page and the
// widget never wait on an estimate: core-client.js sends one call at a time,
// drops calls a newer input made useless, and replaces this worker when an
// answer takes too long or the wasm traps.
//
// A classic worker: vramcalc.js is Emscripten's classic script (importScripts),
// and core-api.mjs, shared with the Node tests, arrives by dynamic import().
// Messages in:  {type: 'init', base, kept}   base: the folder of these files; kept: the attached checkpoint
//               {type: 'module', module}   the WebAssembly.Module the page compiled (sent when ready)
//               {type: 'call', id, method, args, config}   config: the config text, or
//                 undefined for "the same as the last call's" (a 5 MB paste crosses once)
// Messages out: {type: 'ready', info: {options, gpus, hardware}} | {type: 'failed', message}
//               {id, answer, ms} | {id, trap: message}   (ms: the call's own time here; a trap: the instance is never reused)
'use strict';

// Under Trusted Types (require-trusted-types-for 'script', inherited by a Blob
// worker from its page) importScripts takes a TrustedScriptURL; the bootstrap
// of a cross-origin widget (core-client.js) may have made the policy already.
function makeScriptURL() {
  if (self.vramcalcScriptURL) return self.vramcalcScriptURL;
  let policy = null;
  try {
    policy = self.trustedTypes?.createPolicy('vramcalc', { createScriptURL: (url) => url }) ?? null;
  } catch { /* not allowed by name: plain strings work unless Trusted Types are required */ }
  return (url) => (policy ? policy.createScriptURL(url) : url);
}
const scriptURL = makeScriptURL();

let api = null;
let config = null;  // the config text of the last call
let receiveModule;
const compiled = new Promise((resolve) => { receiveModule = resolve; });

async function init({ base, kept }) {
  importScripts(scriptURL(new URL('vramcalc.js', base).href));
  const apiModule = import(new URL('core-api.mjs', base).href);
  const module = await compiled;
  const { coreApi, instantiateCore } = await apiModule;
  // The module compiled once by the page: a replacement worker starts in milliseconds.
  const core = await instantiateCore(self.createVramcalc, module, base);
  api = coreApi(core, kept);
  return { options: JSON.parse(core.options()), gpus: JSON.parse(core.gpus()), hardware: JSON.parse(core.hardware()) };
}

// Right after start-up, while the page builds its controls, a warm-up estimate
// (core-api.mjs) compiles the functions the page's first answer needs.
self.onmessage = async ({ data }) => {
  if (data.type === 'module') {
    receiveModule(data.module);
    return;
  }
  if (data.type === 'init') {
    try {
      self.postMessage({ type: 'ready', info: await init(data) });
      setTimeout(() => api.warmUp(), 0);
    } catch (e) {
      self.postMessage({ type: 'failed', message: String(e?.message ?? e) });
    }
    return;
  }
  const { id, method, args } = data;
  if (data.config !== undefined) config = data.config;
  try {
    const started = performance.now();
    const answer = data.withConfig ? api[method](config, ...args) : api[method](...args);
    self.postMessage({ id, answer, ms: performance.now() - started });
  } catch (e) {
    // A JavaScript exception out of wasm (stack overflow, out of bounds): the client retires this worker.
    self.postMessage({ id, trap: String(e?.message ?? e) });
  }
};
