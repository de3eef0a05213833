// The page's and the widget's way to the core: one Web Worker (core-worker.js)
// per document, asked one call at a time, and, once the page starts it, the
// same core on the page's own thread for the totals of small jobs
// (core-local.js). No arithmetic here.
//
// - Every call returns a promise of the core's JSON answer. A call made with
//   an AbortSignal that fires before it ran resolves to CANCELLED at once (a
//   newer input made it useless); one already running is left to finish,
//   unless it has run for SUPERSEDED_MS: then the worker is terminated and a
//   fresh one takes the queue (the page says so).
// - A call still running after LIMIT_MS is stopped the same way and answers an
//   error naming its field; a trap (stack overflow, out of bounds in wasm)
//   answers "the calculator could not handle this input" and retires the worker.
// - The wasm is compiled once, on this thread (WebAssembly.compileStreaming,
//   off the main thread's critical path, while the first worker loads its
//   scripts), and handed to each worker, so a replacement starts in milliseconds. The checkpoint attached last is handed
//   over too.
// - Same origin: new Worker(core-worker.js). Another origin (the widget on a
//   blog): a worker script must come from the page's own origin, so a
//   same-origin Blob loads core-worker.js with importScripts (classic scripts
//   need no CORS; the wasm and core-api.mjs do). Under Trusted Types the worker
//   URLs go through a policy named 'vramcalc'.

import { localCore, workerAnswered } from './core-local.js';

// A superseded answer may run this long before its worker is replaced: long
// enough that ordinary answers (well under 10 ms; docs/page.md) never cost a
// restart, short enough that typing is never held up noticeably.
export const SUPERSEDED_MS = 1500;
const SUPERSEDED_TEXT = '1.5 s';
// No answer after this long: stopped, with an error naming the job (the core's
// answers are bounded to well under a second natively; docs/hostile-input.md).
export const LIMIT_MS = 10000;
const LIMIT_TEXT = '10 s';
// A patient call (the first "What can I run?" list prepares every catalog model: 1-3 s in wasm, longer on a slow
// phone) is neither reported as slow nor stopped before this.
export const PATIENT_LIMIT_MS = 30000;
const PATIENT_LIMIT_TEXT = '30 s';

export const CANCELLED = Object.freeze({ ok: false, cancelled: true,
  error: Object.freeze({ field: 'internal', message: 'internal: superseded by a newer input' }) });

// Methods whose first argument is the config text (sent once while unchanged).
const WITH_CONFIG = new Set(['estimate', 'estimatePair', 'answer', 'sweep', 'matrix', 'solve', 'cluster', 'chart', 'attachCheckpoint', 'ladder']);

let policy;
let policyRefused = null;  // why createPolicy('vramcalc') threw, if it did
const trustedURLs = new Set();
// A script URL of ours as Trusted Types want it (a TrustedScriptURL from the
// policy 'vramcalc'), or the plain URL where there is no such policy.
export function trustedScriptURL(url) {
  if (policy === undefined) {
    try {
      policy = globalThis.trustedTypes?.createPolicy('vramcalc', {
        createScriptURL: (u) => { if (trustedURLs.has(u)) return u; throw new TypeError(`vramcalc: not its own script: ${u}`); },
      }) ?? null;
    } catch (e) {
      // The page's trusted-types directive does not list 'vramcalc', or a policy of that name exists already
      // (another copy of the widget, or the host's own): plain URLs, refused if Trusted Types are required.
      policy = null;
      policyRefused = e;
    }
  }
  trustedURLs.add(url);
  return policy ? policy.createScriptURL(url) : url;
}

// Why the core could not start, in words a reader of the page can act on.
function startError(e, base, stage) {
  const crossOrigin = base.origin !== globalThis.location?.origin;
  const what = `The calculator could not start: ${stage}`;
  if (e?.name === 'SecurityError' || /Content Security Policy|Content-Security-Policy/i.test(e?.message ?? '')) {
    return new Error(`${what}. This page's Content-Security-Policy does not allow its worker (it needs worker-src ${crossOrigin ? 'blob:' : "'self'"}).`);
  }
  if (/TrustedScriptURL|Trusted ?Type/i.test(e?.message ?? '')) {
    // A duplicate name is not a missing one (issue 37 I2): Chromium says "Policy with name "vramcalc" already exists".
    if (/already exists/i.test(policyRefused?.message ?? '')) {
      return new Error(`${what}. This page already has a Trusted Types policy named 'vramcalc' (widget.js loaded twice from two addresses, ` +
        "or the page's own), and its trusted-types directive does not allow duplicates: load widget.js once, or add 'allow-duplicates'.");
    }
    return new Error(`${what}. This page's Trusted Types rules do not allow it: its trusted-types directive must list the policy 'vramcalc'.`);
  }
  if (crossOrigin && e instanceof TypeError && /fetch/i.test(e.message)) {
    return new Error(`${what}. ${base.origin} did not let this page use the calculator's files (offline, or that server does not send Access-Control-Allow-Origin).`);
  }
  return new Error(`${what} (${e?.message ?? e}).`);
}

async function compileCore(base) {
  const url = new URL('vramcalc.wasm', base).href;
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw startError(e, base, `its core (${url}) could not be fetched`);
  }
  if (!response.ok) throw startError(new Error(`HTTP ${response.status}`), base, `its core (${url}) was not found`);
  try {
    // compileStreaming needs the type application/wasm; a host sending another type still gets the calculator.
    return response.headers.get('content-type')?.startsWith('application/wasm')
      ? await WebAssembly.compileStreaming(response) : await WebAssembly.compile(await response.arrayBuffer());
  } catch (e) {
    throw startError(e, base, `its core (${url}) is not valid WebAssembly`);
  }
}

function workerScript(base) {
  const url = new URL('core-worker.js', base).href;
  if (base.origin === globalThis.location?.origin) return url;
  // Written here, with the URL as a JSON string literal: the Blob holds no text from outside.
  const bootstrap = `'use strict';
let policy = null;
try { policy = self.trustedTypes ? self.trustedTypes.createPolicy('vramcalc', { createScriptURL: (u) => u }) : null; } catch (e) {}
self.vramcalcScriptURL = (u) => (policy ? policy.createScriptURL(u) : u);
importScripts(self.vramcalcScriptURL(${JSON.stringify(url)}));
`;
  return URL.createObjectURL(new Blob([bootstrap], { type: 'text/javascript' }));
}

// base: the URL of the folder holding vramcalc.wasm, core-worker.js and core-api.mjs.
export function coreClient(base) {
  const compiled = compileCore(base);
  compiled.catch(() => {});  // reported through ready
  const listeners = new Set();
  const counts = {};
  const queue = [];
  let worker = null;
  let ready = null;  // promise of the info {options, gpus, hardware}
  let info = null;
  let inflight = null;  // { req, id, started, timer }
  let sentConfig = null;  // the config text the current worker holds
  let kept = null;  // the checkpoint attached last: { configText, bytes }
  let local = null;  // the core on this thread (core-local.js), once started
  let ids = 0;

  const emit = (event) => { for (const fn of listeners) fn(event); };
  // Calls per method, and the answer's calls per part asked ("answer.charts"): the tests count them.
  const count = (method, args) => {
    counts[method] = (counts[method] ?? 0) + 1;
    const parts = method === 'answer' ? args[1]?.parts : null;
    if (parts) counts[`answer.${parts.join('+')}`] = (counts[`answer.${parts.join('+')}`] ?? 0) + 1;
  };

  function spawn() {
    sentConfig = null;
    // The worker starts at once and loads its scripts while the wasm compiles; the module follows.
    const starting = new Promise((resolve, reject) => {
      const script = workerScript(base);
      // A worker refused by the page's CSP fails with a bare error event: the violation says why.
      let refusedBy = null;
      const violation = (e) => {
        if (e.blockedURI === script || (script.startsWith('blob:') && e.blockedURI.startsWith('blob'))) refusedBy = e.effectiveDirective;
      };
      globalThis.document?.addEventListener('securitypolicyviolation', violation);
      const done = () => {
        globalThis.document?.removeEventListener('securitypolicyviolation', violation);
        if (script.startsWith('blob:')) URL.revokeObjectURL(script);  // the worker has its script by then
      };
      const fail = (e) => {
        done();
        reject(e);
      };
      let w;
      try {
        w = new Worker(trustedScriptURL(script), { name: 'vramcalc' });
      } catch (e) {
        fail(startError(e, base, 'its worker was refused'));
        return;
      }
      w.onmessage = ({ data }) => {
        if (data.type === 'ready') {
          done();
          worker = w;
          w.onmessage = ({ data: answer }) => answered(w, answer);
          w.onerror = (e) => { e.preventDefault(); crashed(w, e.message); };
          resolve(data.info);
        } else if (data.type === 'failed') {
          w.terminate();
          fail(startError(new Error(data.message), base, 'its core did not load'));
        }
      };
      w.onerror = (e) => {
        e.preventDefault();
        w.terminate();
        // The violation event may come just after the error event.
        setTimeout(() => fail(refusedBy
          ? startError(new DOMException(`refused by ${refusedBy}`, 'SecurityError'), base, 'its worker was refused')
          : startError(new Error(e.message || 'the worker script did not load'), base, 'its worker did not load')), 50);
      };
      w.postMessage({ type: 'init', base: base.href, kept });
      compiled.then((module) => w.postMessage({ type: 'module', module }), (e) => {
        w.terminate();
        fail(e);
      });
    });
    ready = starting;
    starting.then((i) => { info = i; pump(); }, (e) => {
      // No worker (the first start, or a restart offline without the files cached): the waiting calls answer why,
      // and the next call tries again.
      if (ready === starting) ready = null;
      for (const req of queue.splice(0)) req.resolve({ ok: false, error: { field: req.field, message: `${req.field}: ${e.message}` } });
    });
    return starting;
  }

  function finish(answer) {
    const { req, timer } = inflight;
    clearTimeout(timer);
    inflight = null;
    if (req.method === 'attachCheckpoint' && answer?.ok) kept = { configText: req.config, bytes: req.args[0] };
    req.resolve(answer);
  }

  // Terminates the worker, answers the running call, starts a fresh worker for the queue.
  function replace(answer, event) {
    worker?.terminate();
    worker = null;
    if (inflight) finish(answer);
    if (event) emit(event);
    spawn();
  }

  function answered(w, data) {
    if (w !== worker || !inflight || data.id !== inflight.id) return;
    const { req } = inflight;
    if (data.trap !== undefined) {
      replace({ ok: false, error: { field: req.field, message: `${req.field}: the calculator could not handle this input (${data.trap})` } });
      return;
    }
    const slow = performance.now() - inflight.started >= SUPERSEDED_MS;
    // How long the worker took to answer a config's totals decides whether this thread may read that config too.
    const headOnly = req.method === 'answer' && req.args[0]?.parts?.length === 1 && req.args[0].parts[0] === 'head';
    if (req.method === 'estimatePair' || headOnly) workerAnswered(req.config, data.ms);
    finish(req.signal?.aborted ? CANCELLED : data.answer);
    if (slow) emit({ kind: 'done' });
    pump();
  }

  function crashed(w, message) {
    if (w !== worker) return;
    const field = inflight?.req.field ?? 'internal';
    replace({ ok: false, error: { field, message: `${field}: the calculator stopped (${message || 'its worker crashed'})` } });
  }

  // A call that runs long: replaced at once if superseded, else reported, and stopped at LIMIT_MS.
  function overdue() {
    if (!inflight) return;
    const { req, started } = inflight;
    const elapsed = performance.now() - started;
    const [limit, limitText] = req.patient ? [PATIENT_LIMIT_MS, PATIENT_LIMIT_TEXT] : [LIMIT_MS, LIMIT_TEXT];
    if (req.signal?.aborted) {
      replace(CANCELLED, { kind: 'restarted', message: `An earlier input took over ${SUPERSEDED_TEXT}; the calculator was restarted for the newest one.` });
    } else if (elapsed >= limit) {
      // The job as a whole: which field made it slow is not known.
      replace({ ok: false, error: { field: 'job', message: `job: no answer after ${limitText}; the calculator stopped this job` } },
        { kind: 'stopped', message: `A job ran for ${limitText} without an answer and was stopped.` });
    } else {
      if (!req.patient) emit({ kind: 'slow', message: 'Still computing: this job takes longer than usual.' });
      inflight.timer = setTimeout(overdue, limit - elapsed);
    }
  }

  function pump() {
    if (inflight || !worker || !queue.length) return;
    const req = queue.shift();
    const id = ++ids;
    const message = { type: 'call', id, method: req.method, args: req.args, withConfig: WITH_CONFIG.has(req.method) };
    if (message.withConfig && req.config !== sentConfig) {
      message.config = req.config;
      sentConfig = req.config;
    }
    inflight = { req, id, started: performance.now(), timer: setTimeout(overdue, SUPERSEDED_MS) };
    worker.postMessage(message);
  }

  function call(method, args, { signal, field = 'config', patient = false } = {}) {
    count(method, args);
    if (signal?.aborted) return Promise.resolve(CANCELLED);
    return new Promise((resolve) => {
      const [config, ...rest] = WITH_CONFIG.has(method) ? args : [undefined, ...args];
      const req = { method, args: rest, config, signal, field, patient, resolve };
      queue.push(req);
      signal?.addEventListener('abort', () => {
        const at = queue.indexOf(req);
        if (at >= 0) {
          queue.splice(at, 1);
          resolve(CANCELLED);
        } else if (inflight?.req === req && performance.now() - inflight.started >= SUPERSEDED_MS) {
          overdue();
        }
      }, { once: true });
      if (!worker && !ready) spawn();
      pump();
    });
  }

  spawn();
  return {
    // Resolves to { options, gpus, hardware } once the first worker is up; rejects with a plain-words reason.
    ready: () => (info ? Promise.resolve(info) : ready ?? spawn()),
    call,
    // The core on this thread too (core-local.js; same origin only): resolves once it answers.
    startLocal() {
      local ??= localCore(compiled, base, trustedScriptURL);
      return local.ready;
    },
    // A call answered on this thread, counted as a worker's would be; undefined: ask the worker (call).
    // Never while a checkpoint is attached (the worker holds it).
    now(method, args) {
      if (!local || kept) return undefined;
      const answer = local.call(method, args);
      if (answer !== undefined) count(method, args);
      return answer;
    },
    detachCheckpoint() {
      kept = null;
      return call('detachCheckpoint', [], { field: 'checkpoint' });
    },
    // Listeners get { kind: 'slow' | 'done' | 'restarted' | 'stopped', message }.
    onStatus(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    // How many calls of each method were made (the tests count sweeps per input).
    counts: () => ({ ...counts }),
  };
}
