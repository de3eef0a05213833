// Share links: the page's state (a URLSearchParams, see state.js) lives in the
// URL fragment, compressed, so no server ever receives it (fragments are not
// sent in requests, nor logged) and a pasted config does not make a dead link:
//
//   index.html#s=<base64url(deflate-raw(the state's query string, UTF-8))>
//
// Older links carried the same fields in the query (?model=…&cfg=…); the page
// still reads them and rewrites the address to this form. Used by the page,
// the Embed snippet and the widget's "Open in vramcalc" link. No DOM here.
import { readAll } from './streams.js';

// The longest fragment a link may have. Chromium shows at most 32 KiB of a URL
// in its address bar (content/common/content_constants.cc, kMaxURLDisplayChars =
// 32 * 1024), the place links are copied from; a longer link is cut there. (The
// hard limit is 2 MiB, kMaxURLChars; servers' 8 KB limits do not apply to a
// fragment.) A state over this limit leaves its config out of the link.
export const MAX_FRAGMENT = 32 * 1024;
const KEY = 's=';
const DAMAGED = 'the link\'s state is damaged (cut short or changed); ask for the link again';

// base64url of bytes, in chunks: spreading a large array into String.fromCharCode overflows the argument limit.
export function bytesToBase64url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
export function base64urlToBytes(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Runs bytes through a (De)CompressionStream; with `cap`, stops reading once
// the output passes it and answers null (a hostile link cannot inflate to gigabytes).
function through(stream, bytes, cap = Infinity) {
  const writer = stream.writable.getWriter();
  writer.write(bytes).catch(() => {});
  writer.close().catch(() => {});
  return readAll(stream.readable, cap);
}

// The fragment (without '#') for a state.
export async function encodeState(query) {
  const packed = await through(new CompressionStream('deflate-raw'), new TextEncoder().encode(String(query)));
  return KEY + bytesToBase64url(packed);
}

// The state in a fragment ('#s=…' or 's=…'): a URLSearchParams; null when the
// fragment holds no state; throws when it is not a state this page wrote.
// maxText: the longest state accepted once inflated (the core's JSON limit
// bounds any config in it).
export async function decodeState(fragment, maxText) {
  const text = fragment.replace(/^#/, '');
  if (!text.startsWith(KEY)) return null;
  let bytes;
  try {
    bytes = await through(new DecompressionStream('deflate-raw'), base64urlToBytes(text.slice(KEY.length)), maxText);
  } catch {
    throw new Error(DAMAGED);
  }
  if (bytes === null) throw new Error(`the link's state is larger than ${maxText} bytes once unpacked`);
  // Bytes that are not UTF-8 were not written by this page either (issue 37 L6: TextDecoder's own words showed).
  let query;
  try {
    query = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(DAMAGED);
  }
  return new URLSearchParams(query);
}

// An address of the calculator (page: its URL, e.g. .../index.html) showing
// this state; `search` keeps non-state options such as ?embed=1.
export async function stateLink(page, query, search = '') {
  const url = new URL(page);
  url.search = search;
  url.hash = await encodeState(query);
  return url.href;
}
