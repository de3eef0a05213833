// Starts the core and the catalog as early as the page can: an async module
// script with a small graph (vramcalc-client.js, core-client.js, core-local.js, core-api.mjs),
// run as soon as those four are fetched, while the page's other modules still
// load. app.js later gets the same client (one module instance per document).
import { loadCore, loadModels } from './vramcalc-client.js';

// After the first frame: the wasm's compile and the worker's start would otherwise share the CPU with the first
// paint (a repeat visit's first number came 16-20 ms later in A/B runs; docs/page.md, "Speed"); on a cold visit
// the wasm is still downloading then (its preload in <head> started it).
await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
loadCore().catch(() => {});  // app.js reports a failure
loadModels().catch(() => {});
