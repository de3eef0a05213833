// The fast way to ask the core, for the page, the widget and the Node tests
// alike (no DOM here). The config crosses into wasm only when it changes,
// and answers come back as bytes decoded natively.
const decoder = new TextDecoder();

export function coreApi(core) {
  let currentConfig = null;
  const use = (configText) => {
    if (configText !== currentConfig) {
      currentConfig = null;  // a throw below leaves no half-chosen config behind
      core.useConfig(configText);
      currentConfig = configText;
    }
  };
  return {
    estimate(configText, job) {
      use(configText);
      // Decode at once: the view points into wasm memory, which the next call may reuse or grow.
      return JSON.parse(decoder.decode(core.estimateView(JSON.stringify(job))));
    },
    // Per-term bytes for one job field over `values` (one core call).
    sweep(configText, job, axis, values) {
      use(configText);
      return JSON.parse(core.sweep(JSON.stringify(job), axis, JSON.stringify(values)));
    },
    // Total per GPU for every weight format × mode.
    matrix(configText, job) {
      use(configText);
      return JSON.parse(core.matrix(JSON.stringify(job)));
    },
    // An inverse answer for the job on its GPU (core/inverse.hpp questions).
    solve(configText, job, question) {
      use(configText);
      return JSON.parse(core.solveCurrent(JSON.stringify(job), question));
    },
    // The cluster planner for the job (core/cluster_answer.cpp): throughput, interconnect, time, cost.
    cluster(configText, job, cluster) {
      use(configText);
      return JSON.parse(core.cluster(JSON.stringify(job), JSON.stringify(cluster)));
    },
    ticks(maxBytes) {
      return JSON.parse(core.ticks(maxBytes));
    },
  };
}
