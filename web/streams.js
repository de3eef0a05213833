// Reading a stream of bytes whole, with a cap: shared by the Hub downloads
// (hub.js) and the link's (de)compression (link.js). No DOM here.

// All of `readable`'s bytes as one Uint8Array; null as soon as they pass `cap`
// (the stream is cancelled there: a huge answer is never read whole).
export async function readAll(readable, cap = Infinity) {
  const reader = readable.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > cap) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}
