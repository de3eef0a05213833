// The Embed button's HTML. Every value written into the snippet is escaped
// as an attribute value: job fields and model ids come from the URL, so a
// crafted link must not smuggle markup into someone's blog.
const attrEscapes = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };
export const escapeAttr = (value) => String(value).replace(/[&<>"'`]/g, (c) => attrEscapes[c]);

// Attribute names are job field names from the core's options (letters, digits, _).
const attributeName = (key) => {
  if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`embed: unexpected field name ${key}`);
  return key.replaceAll('_', '-');
};

// here: the calculator's folder URL. changed: job fields that differ from the
// defaults. fragment: the page state as link.js encodes it (for the iframe and
// the widget's fallback link).
// The widget's element holds a line of its own, shown until widget.js replaces
// it and left on screen when widget.js cannot load on the host page (blocked
// by the host's Content-Security-Policy, or by a server without CORS headers).
export function embedSnippet({ here, modelId, changed, fragment }) {
  const src = new URL(`index.html?embed=1#${fragment}`, here);
  const page = new URL(`index.html#${fragment}`, here);
  // The iframe shows the results first; embed-host.js sizes it to its content (the page reports its height).
  const iframe = `<iframe src="${escapeAttr(src.href)}" width="100%" height="900" loading="lazy" title="vramcalc" ` +
    `style="border:0" data-vramcalc></iframe>\n<script src="${escapeAttr(new URL('embed-host.js', here).href)}" async></script>`;
  if (modelId === null) return iframe;
  const attrs = [`model="${escapeAttr(modelId)}"`];
  for (const [key, value] of Object.entries(changed)) attrs.push(`${attributeName(key)}="${escapeAttr(value)}"`);
  const widget = `<script type="module" src="${escapeAttr(new URL('widget.js', here).href)}"></script>\n` +
    `<vram-calc ${attrs.join(' ')}>Loading the GPU memory calculator… If this line stays, it could not load on this page: ` +
    `<a href="${escapeAttr(page.href)}">open this estimate on vramcalc</a>.</vram-calc>`;
  return `${widget}\n\n<!-- or, as an iframe: -->\n${iframe}`;
}
