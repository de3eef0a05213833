// The core on the page's own thread as well, for the totals of small jobs:
// their answer then comes in the input's own task, so the new total is
// painted in the frame right after the input (issue 23; docs/page.md,
// "Speed"). Everything else still goes to the worker (core-client.js),
// and so do the totals whenever this thread is not the place for them:
// - a config the worker has not yet answered within READ_HERE_MS (workerAnswered): a new config is read
//   in the worker first, so one that is expensive to read never blocks this thread, not even once (a skip
//   list of 2,000 patterns took 5.7 s here: issue 37 H2);
// - a config larger than LOCAL_CONFIG_CHARS (a big paste is read once, there);
// - a config whose answers took longer than LOCAL_MS here SLOW_TIMES times in
//   a row (a 10,000-layer config: the worker keeps typing free of it; a
//   config's first answers here may be slow once, while the wasm compiles);
// - while a checkpoint is attached (the worker holds it; core-client.js);
// - after a trap here (this instance is never used again).
// It is a second instance of the module the page compiled once for its
// workers, so both threads run the same core and give the same answers.
import { coreApi, instantiateCore } from './core-api.mjs';

// One 60 Hz frame: an answer slower than that would hold the next frame back.
export const LOCAL_MS = 16;
const SLOW_TIMES = 3;
const LOCAL_CONFIG_CHARS = 256 * 1024;
const LOCAL_METHODS = new Set(['estimatePair', 'answer']);
// The worker's time for a config's totals (reading it included) under which this thread may read it too:
// an ordinary config takes a few milliseconds; one that takes longer stays in the worker.
export const READ_HERE_MS = 100;

// The configs the worker answered within READ_HERE_MS, the latest last (a few: the page's model and its
// comparisons'); one answered slower is taken off. core-client.js reports every estimatePair it answered, and
// every answer's head alone (the page's first question; the later parts take longer by design).
const quick = [];
export function workerAnswered(config, ms) {
  const at = quick.indexOf(config);
  if (at >= 0) quick.splice(at, 1);
  if (typeof config !== 'string' || !(ms <= READ_HERE_MS)) return;
  quick.push(config);
  if (quick.length > 4) quick.shift();
}

// Emscripten's classic script (vramcalc.js) defines createVramcalc. scriptURL: the URL as the page's
// Trusted Types want it (core-client.js trustedScriptURL).
function loadGlue(url, scriptURL) {
  if (globalThis.createVramcalc) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = scriptURL(url);
    script.onload = resolve;
    script.onerror = () => reject(new Error(`${url} did not load`));
    document.head.append(script);
  });
}

const idle = () => new Promise((resolve) => (globalThis.requestIdleCallback ?? setTimeout)(resolve));

// compiled: the promise of the WebAssembly.Module; base: the folder of vramcalc.js.
export function localCore(compiled, base, scriptURL = (url) => url) {
  let api = null;
  let slow = { config: null, times: 0 };  // the config whose last answers here were slow, and how many in a row
  const ready = (async () => {
    const module = await compiled;
    await loadGlue(new URL('vramcalc.js', base).href, scriptURL);
    const here = coreApi(await instantiateCore(globalThis.createVramcalc, module, base));
    await idle();
    here.warmUp();
    api = here;
  })();
  ready.catch(() => {});  // the worker answers everything then
  return {
    ready,
    // The answer of a call on this thread, or undefined: ask the worker.
    call(method, args) {
      const [config] = args;
      if (!api || !LOCAL_METHODS.has(method) || config.length > LOCAL_CONFIG_CHARS || !quick.includes(config)) return undefined;
      if (slow.config === config && slow.times >= SLOW_TIMES) return undefined;
      const started = performance.now();
      let answer;
      try {
        answer = api[method](...args);
      } catch {
        api = null;  // a trap: the worker gives this call's answer (and its error), and every later one
        return undefined;
      }
      const took = performance.now() - started;
      if (took <= LOCAL_MS) slow = { config: null, times: 0 };
      else slow = { config, times: slow.config === config ? slow.times + 1 : 1 };
      return answer;
    },
  };
}
