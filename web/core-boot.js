// Starts compiling the C++ core as soon as the page begins to load, while its
// ES modules are still arriving; vramcalc-client.js then instantiates this
// compiled module instead of fetching and compiling the wasm itself. A page
// without this script (the widget) loads the core the usual way.
'use strict';
self.vramcalcCompiled = WebAssembly.compileStreaming(fetch(new URL('vramcalc.wasm', document.currentScript.src)));
self.vramcalcCompiled.catch(() => {});  // on failure the loader fetches the wasm itself
