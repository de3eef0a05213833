// Starts the core and the catalog as early as the page can: an async module
// script with a small graph (vramcalc-client.js, core-client.js, core-api.mjs),
// run as soon as those three are fetched, while the page's other modules still
// load. app.js later gets the same client (one module instance per document).
import { loadCore, loadModels } from './vramcalc-client.js';

loadCore().catch(() => {});  // app.js reports a failure
loadModels().catch(() => {});
