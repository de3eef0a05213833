// Loads the Emscripten module under Node. Node 20's fetch() cannot read a
// file path, so the .wasm bytes are handed over directly.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..');
const web = process.env.VRAMCALC_WEB || path.join(repo, 'web');

export async function loadVramcalc() {
  const require = createRequire(import.meta.url);
  const createVramcalc = require(path.join(web, 'vramcalc.js'));
  return createVramcalc({ wasmBinary: readFileSync(path.join(web, 'vramcalc.wasm')) });
}

// The CLI's --json is the one answer (docs/answer.md): the job's estimate with the answer's other parts
// beside it. The estimate alone, to compare with an estimate call: every key but the answer's own.
const ANSWER_KEYS = ['schema', 'parts', 'model_name', 'title', 'intent', 'machine', 'capacity', 'headline', 'recipe', 'cards',
  'counterpart', 'what_fits', 'charts', 'planner', 'planner_check', 'matrix', 'ladder'];
export function estimatePart(answer) {
  if (!answer?.ok || !('parts' in answer)) return answer;
  return Object.fromEntries(Object.entries(answer).filter(([key]) => !ANSWER_KEYS.includes(key)));
}
