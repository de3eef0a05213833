// Runs before the first paint (a classic script in <head>): the figures baked
// into index.html (scripts/bake.mjs) are the default view's, with no GPU
// chosen. When the address holds another state, or the visitor has a GPU
// remembered, they are hidden until the core answers for that view
// (style.css, html[data-first-view=other]); the page never shows another
// job's figures as this one's.
(() => {
  let yours = null;
  try {
    yours = JSON.parse(localStorage.getItem('vramcalc.yourGpus') ?? 'null');
  } catch { /* storage refused or damaged: nothing remembered */ }
  const query = new URLSearchParams(location.search);
  query.delete('embed');
  const other = location.hash.length > 1 || [...query.keys()].length > 0
    || Boolean(yours && (yours.gpu || (yours.count && yours.count !== '1') || yours.units === 'gib'));
  document.documentElement.dataset.firstView = other ? 'other' : 'baked';
})();
