// The fast way to ask the core for estimates, for the page, the widget and
// the Node tests alike (no DOM here). The config crosses into wasm only when
// it changes, and answers come back as bytes decoded natively.
const decoder = new TextDecoder();

export function coreApi(core) {
  let currentConfig = null;
  return {
    estimate(configText, job) {
      if (configText !== currentConfig) {
        core.useConfig(configText);
        currentConfig = configText;
      }
      // Decode at once: the view points into wasm memory, which the next call may reuse or grow.
      return JSON.parse(decoder.decode(core.estimateView(JSON.stringify(job))));
    },
  };
}
