// For pages that embed the calculator as an iframe (the Embed button's
// snippet loads this): each calculator iframe marked data-vramcalc takes the
// height its page reports (app.js posts { vramcalcHeight } on every resize),
// so nothing is cut off and the host page has no inner scrollbar.
const tallest = 20000;  // px: a bound on what a framed page may ask of its host
addEventListener('message', (e) => {
  const height = e.data?.vramcalcHeight;
  if (!Number.isFinite(height) || height <= 0) return;
  for (const frame of document.querySelectorAll('iframe[data-vramcalc]')) {
    if (frame.contentWindow === e.source) frame.style.height = `${Math.min(Math.ceil(height), tallest)}px`;
  }
});
