// Issue 36's page and widget: the "Post-train (RL / DPO)" entry point (GRPO of Qwen2.5-7B with LoRA on an H100,
// vLLM colocated: each phase, the peak and the inverse answers equal the native CLI's), its link, the speculative
// decoding and LoRA-slot fields under Serve (the serving answer as the CLI's), "+ add a model" (the shared GPU's
// verdict as the CLI's), the widget with mode="grpo", and a bad field named once.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { offlineCalculator, openCalculator, settled, stateOf, watchPage, screenshot, repo } from './harness.mjs';

const cli = process.env.VRAMCALC_CLI || path.join(repo, 'build', 'vramcalc');
const native = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8' }));
const env = offlineCalculator();

// The post-train intent's preset (core/job/intents.cpp) on an H100, as CLI flags.
const GRPO = ['--model', 'qwen2.5-7b', '--mode', 'grpo', '--framework', 'trl', '--policy', 'lora', '--use-vllm', 'true',
  '--vllm-mode', 'colocate', '--num-generations', '8', '--max-completion-length', '1024', '--gpu', 'h100'];

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
async function axe(page) {
  await page.evaluate(axeSource);  // the strict CSP refuses an inline script tag
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

// The post-training panel as shown: each phase's name and total (the peak marked), the peak line, the inverse answers.
const shownPosttrain = (page) => page.evaluate(() => {
  const box = document.getElementById('posttrain-panel');
  return {
    hidden: box.hidden,
    phases: [...box.querySelectorAll('.phase')].map((li) => ({ key: li.dataset.phase, label: li.querySelector('.phase-label').textContent,
      total: li.querySelector('.phase-total').textContent, peak: li.classList.contains('peak'),
      parts: [...li.querySelectorAll('.seg')].map((s) => s.title) })),
    peak: box.querySelector('.posttrain-peak')?.dataset.peak,
    peakText: box.querySelector('.posttrain-peak')?.textContent,
    limits: [...box.querySelectorAll('.limits li')].map((li) => ({ question: li.dataset.question, text: li.textContent })),
    rollout: [...box.querySelectorAll('.rollout li')].map((li) => li.textContent),
  };
});

function assertPosttrainEqual(shown, want) {
  const p = want.posttrain;
  assert.equal(shown.hidden, false);
  assert.deepEqual(shown.phases.map((s) => s.key), p.phases.map((ph) => ph.key));
  for (const [i, ph] of p.phases.entries()) {
    assert.equal(shown.phases[i].label, ph.label);
    assert.equal(shown.phases[i].total, ph.peak ? `${ph.text} · peak` : ph.text, ph.key);
    assert.equal(shown.phases[i].peak, ph.peak);
    assert.deepEqual(shown.phases[i].parts, ph.parts.filter((x) => x.bytes > 0).map((x) => `${x.label}: ${x.text}`), ph.key);
  }
  assert.equal(shown.peak, p.peak_phase);
  const peak = p.phases.find((ph) => ph.peak);
  assert.ok(shown.peakText.startsWith(`Peak: ${p.peak_label}, ${peak.text}; the total per GPU, ${want.total_text},`), shown.peakText);
  assert.deepEqual(shown.limits, p.limits.map((l) => ({ question: l.question, text: `${l.text} (${l.answer_label}: ${l.total_at_text} per GPU)` })));
}

test('Post-train (RL / DPO): GRPO of Qwen2.5-7B with LoRA on an H100, vLLM colocated: the phases, the peak and the inverse are the CLI\'s; the link restores them', async () => {
  const want = native(GRPO);
  // The hand-derived test's setting (tests/test_posttrain.cpp): a peak in the policy's training step, vLLM awake beside it.
  assert.equal(want.posttrain.peak_phase, 'loss_backward');
  assert.equal(want.posttrain.limits.length, 2);
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen2.5-7b`);
  await page.selectOption('#gpu', 'h100');
  await page.click('button[data-intent=post_train]');
  assert.equal(await page.inputValue('#mode'), 'grpo');
  assert.equal(await page.inputValue('#policy'), 'lora');
  assert.equal(await page.isChecked('#use_vllm'), true);
  assert.equal(await page.locator('#total').innerText(), want.total_text);
  assert.equal(await page.locator('#verdict').innerText(), want.verdict.text);
  const shown = await shownPosttrain(page);
  assertPosttrainEqual(shown, want);
  // The rollout engine, awake and beside the policy's training (no sleep mode): the core's texts.
  const r = want.posttrain.rollout;
  assert.ok(shown.rollout[0].startsWith(`Generating: ${r.awake_text} (`), shown.rollout[0]);
  assert.ok(shown.rollout[1].startsWith(`While the policy trains: ${r.asleep_text} (`), shown.rollout[1]);
  // The precision × mode matrix is the policy's, in each mode (the core drops the fields a cell's mode refuses).
  const cells = await page.locator('#matrix tbody td').allTextContents();
  assert.ok(cells.filter((c) => /\d GB/.test(c)).length >= 40, cells.join(' | '));
  // The post-training fields show; the serving ones and "+ add a model" do not.
  assert.equal(await page.isVisible('#num_generations'), true);
  assert.equal(await page.isVisible('#colocation-add'), false);
  // The link holds the intent (the core applies its recipe, docs/answer.md) and the GPU, and a new tab shows the same step.
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  const q = stateOf(page.url());
  for (const [key, value] of [['intent', 'post_train'], ['gpu', 'h100']]) assert.equal(q.get(key), value, key);
  const again = await openCalculator(env.context, page.url());
  assert.equal(await again.inputValue('#mode'), 'grpo');
  assert.equal(await again.inputValue('#max_completion_length'), '1024');
  assertPosttrainEqual(await shownPosttrain(again), want);
  // A shorter completion moves every phase the CLI's way.
  await again.fill('#max_completion_length', '256');
  await settled(again);
  assertPosttrainEqual(await shownPosttrain(again), native([...GRPO.slice(0, -4), '--max-completion-length', '256', '--gpu', 'h100']));
  // DPO of the same model: no rollout, no generation phase; the online fields hide and are not sent.
  await again.selectOption('#mode', 'dpo');
  await settled(again);
  const dpo = native(['--model', 'qwen2.5-7b', '--mode', 'dpo', '--framework', 'trl', '--policy', 'lora', '--gpu', 'h100']);
  assertPosttrainEqual(await shownPosttrain(again), dpo);
  assert.equal(await again.isVisible('#num_generations'), false);
  // Back to inference: the post-training panel goes, the counterpart card is the policy served.
  await again.selectOption('#mode', 'inference');
  await settled(again);
  assert.equal((await shownPosttrain(again)).hidden, true);
  assert.equal(await again.locator('#error').isVisible(), false);
  assert.deepEqual([...page.jsErrors, ...again.jsErrors], []);
});

test('a bad post-training field shows one error naming it, as the CLI words it', async () => {
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=qwen2.5-7b&mode=grpo&policy=lora&gpu=h100`);
  await page.fill('#num_generations', '3');
  let message = '';
  try {
    execFileSync(cli, ['--model', 'qwen2.5-7b', '--mode', 'grpo', '--policy', 'lora', '--gpu', 'h100', '--num-generations', '3'], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.equal(e.status, 2);
    message = e.stderr.trim().replace(/^vramcalc: error: job\.num_generations: /, '');
  }
  assert.match(message, /^must divide the global batch of 8 completions/);
  assert.equal(await page.locator('#error').innerText(), `Completions per prompt (num_generations): ${message} (the figures below are the last valid ones)`);
  assert.equal(await page.locator('.field-error').count(), 1);
  assert.equal(await page.locator('#num_generations-error').innerText(), message);
  assert.equal(await page.getAttribute('#num_generations', 'aria-invalid'), 'true');
});

test('PPO with a LoRA policy: the critic-on-LoRA box shows under PPO only, and ticking it gives the CLI\'s phases with --critic-lora', async () => {
  const PPO = ['--model', 'llama-3.1-8b', '--mode', 'ppo', '--policy', 'lora', '--gpu', 'b200'];  // both critics fit: the inverse answers too
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3.1-8b&mode=ppo&policy=lora&gpu=b200`);
  assert.equal(await page.isVisible('#critic_lora'), true);
  assert.equal(await page.isChecked('#critic_lora'), false);  // TRL's PPOTrainer: the critic trains whole
  assertPosttrainEqual(await shownPosttrain(page), native(PPO));
  await page.check('#critic_lora');
  const want = native([...PPO, '--critic-lora', 'true']);
  assertPosttrainEqual(await shownPosttrain(page), want);
  assert.ok(want.posttrain.persistent.parts.find((x) => x.key === 'critic_weights').why.includes('trained with the policy\'s adapters (critic_lora)'));
  assert.equal(stateOf(page.url()).get('critic_lora'), 'true');
  await page.selectOption('#mode', 'grpo');
  assert.equal(await page.isVisible('#critic_lora'), false);  // a GRPO step has no critic
  assert.deepEqual(page.jsErrors, []);
});

test('Serve: speculative decoding and LoRA slots change the serving answer as the CLI\'s does', async () => {
  const base = ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu', 'h100'];
  const plain = native(base);
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3.1-8b&engine=vllm&gpu=h100`);
  await page.evaluate(() => { document.getElementById('recipe-box').open = true; });
  assert.equal(await page.locator('#serving-view').innerText(), plain.serving_view.text);
  assert.equal(await page.locator('#serving-extras').isVisible(), false);
  await page.selectOption('#speculative_method', 'draft');
  await page.fill('#speculative_model', 'llama-3.2-1b');
  await page.fill('#num_speculative_tokens', '5');
  const spec = native([...base, '--speculative-method', 'draft', '--speculative-model', 'llama-3.2-1b', '--num-speculative-tokens', '5']);
  assert.notEqual(spec.serving_view.text, plain.serving_view.text);
  assert.equal(await page.locator('#serving-view').innerText(), spec.serving_view.text);
  assert.equal(await page.locator('#total').innerText(), spec.total_text);
  const s = spec.serving.speculative;
  assert.equal(await page.locator('[data-extra=speculative]').innerText(),
    `Speculative decoding with a draft model (llama-3.2-1b): weights ${s.weights_text}, KV ${s.kv_text}. ${s.why}`);
  await page.check('#enable_lora');
  await page.fill('#max_loras', '4');
  await page.fill('#max_lora_rank', '64');
  const both = native([...base, '--speculative-method', 'draft', '--speculative-model', 'llama-3.2-1b', '--num-speculative-tokens', '5',
    '--enable-lora', 'true', '--max-loras', '4', '--max-lora-rank', '64']);
  const l = both.serving.lora_slots;
  assert.equal(await page.locator('[data-extra=lora_slots]').innerText(), `LoRA adapter slots: ${l.gpu_text} on the GPU, ${l.cpu_text} in host RAM. ${l.why}`);
  assert.equal(await page.locator('#serving-view').innerText(), both.serving_view.text);
  // Every field is in the link; a draft the catalog does not have is the core's error, under its field.
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  const q = stateOf(page.url());
  assert.deepEqual(['speculative_method', 'speculative_model', 'num_speculative_tokens', 'enable_lora', 'max_loras', 'max_lora_rank'].map((k) => q.get(k)),
    ['draft', 'llama-3.2-1b', '5', 'true', '4', '64']);
  const again = await openCalculator(env.context, page.url());
  assert.equal(await again.locator('#serving-view').innerText(), both.serving_view.text);
  await page.fill('#speculative_model', 'lama-3.2-1b');
  assert.match(await page.locator('#speculative_model-error').innerText(), /unknown model 'lama-3\.2-1b'; did you mean/);
  assert.equal(await page.locator('.field-error').count(), 1);
  assert.deepEqual([...page.jsErrors, ...again.jsErrors], []);
});

test('+ add a model: the shared GPU\'s verdict and each job\'s figures are the CLI\'s; the link keeps the models', async () => {
  const base = ['--model', 'llama-3.1-8b', '--engine', 'vllm', '--gpu-memory-utilization', '0.6', '--gpu', 'rtx4090'];
  const page = await openCalculator(env.context, `${env.server.url}index.html?model=llama-3.1-8b&engine=vllm&gpu_memory_utilization=0.6&gpu=rtx4090`);
  assert.equal(await page.locator('#colocation-answer').isVisible(), false);
  await page.click('#colocation-add');
  await page.fill('#colocation-0-batch', '32');
  await page.fill('#colocation-0-seq', '512');
  const want = native([...base, '--machine-jobs', JSON.stringify([{ model: 'bge-m3', engine: 'hf', batch: 32, seq: 512 }])]);
  const c = want.colocation ?? want.machine?.shared;  // the one answer (issue 33) carries it as machine.shared
  assert.equal(await page.locator('.colocation-verdict').innerText(), c.verdict);
  const rows = await page.locator('.colocation-jobs tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual(rows, c.jobs.map((j) => [j.label, j.engine === 'hf' ? 'transformers' : 'vLLM', j.text, `${j.own_fits ? '✓' : '✗'} ${j.why}`,
    j.share > 0 ? j.headroom_text : '—']));
  // The link carries machine_jobs as the JSON text the core reads; a new tab shows the same rows and verdict.
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  assert.deepEqual(JSON.parse(stateOf(page.url()).get('machine_jobs')), [{ model: 'bge-m3', engine: 'hf', batch: 32, seq: 512 }]);
  const again = await openCalculator(env.context, page.url());
  assert.equal(await again.inputValue('#colocation-0-model'), 'bge-m3');
  assert.equal(await again.locator('.colocation-verdict').innerText(), c.verdict);
  // A second vLLM at 0.5 beside the job's 0.6: the shares pass 1, the core's error names that share.
  await page.selectOption('#colocation-0-engine', 'vllm');
  await page.fill('#colocation-0-share', '0.5');
  assert.match(await page.locator('#error').innerText(), /^job\.machine_jobs\[0\]\.gpu_memory_utilization: the engines' shares of this GPU add up to 1\.1/);
  assert.equal(await page.locator('.field-error').count(), 1);
  assert.equal(await page.getAttribute('#colocation-0-share', 'aria-invalid'), 'true');
  await page.fill('#colocation-0-share', '0.3');
  const two = native([...base, '--machine-jobs', JSON.stringify([{ model: 'bge-m3', engine: 'vllm', batch: 32, seq: 512, gpu_memory_utilization: 0.3 }])]);
  assert.equal(await page.locator('.colocation-verdict').innerText(), (two.colocation ?? two.machine?.shared).verdict);
  // Removed: the job alone again.
  await page.click('#colocation-0-remove');
  assert.equal(await page.locator('#colocation-answer').isVisible(), false);
  assert.equal(stateOf(page.url()).get('machine_jobs'), null);
  assert.deepEqual([...page.jsErrors, ...again.jsErrors], []);
});

test('the widget with mode="grpo": the post-training peak and phases are the CLI\'s; a bad field is one error naming it', async () => {
  const want = native(GRPO);
  const demo = watchPage(await env.context.newPage());
  await demo.goto(`${env.server.url}embed-demo.html`);
  await demo.waitForFunction(() => [...document.querySelectorAll('vram-calc')].every((w) => w.dataset.total));
  await demo.evaluate(() => {
    const w = document.createElement('vram-calc');
    w.id = 'grpo';
    for (const [k, v] of [['model', 'qwen2.5-7b'], ['mode', 'grpo'], ['framework', 'trl'], ['policy', 'lora'], ['use-vllm', ''], ['vllm-mode', 'colocate'],
      ['num-generations', '8'], ['max-completion-length', '1024'], ['gpu', 'h100']]) w.setAttribute(k, v);
    document.body.append(w);
  });
  await demo.waitForFunction(() => document.getElementById('grpo').dataset.total);
  const shown = await demo.evaluate(() => {
    const root = document.getElementById('grpo').shadowRoot;
    return { total: document.getElementById('grpo').dataset.total, peak: document.getElementById('grpo').dataset.peak,
      peakText: root.querySelector('.peak').textContent, limits: root.querySelector('.limits').textContent,
      phases: [...root.querySelectorAll('.phase')].map((li) => [li.dataset.phase, li.querySelector('.phase-total').textContent]) };
  });
  const p = want.posttrain;
  assert.equal(shown.total, want.total_text);
  assert.equal(shown.peak, p.peak_phase);
  assert.equal(shown.peakText, `GRPO post-training (RL): the peak is ${p.peak_label}, ${p.phases.find((ph) => ph.peak).text}`);
  assert.deepEqual(shown.phases, p.phases.map((ph) => [ph.key, ph.peak ? `${ph.text} · peak` : ph.text]));
  assert.equal(shown.limits, p.limits.map((l) => l.text).join('; '));
  await demo.evaluate(() => document.getElementById('grpo').setAttribute('num-generations', '3'));
  await demo.waitForFunction(() => !!document.getElementById('grpo').dataset.error);
  const error = await demo.evaluate(() => document.getElementById('grpo').dataset.error);
  assert.match(error, /num_generations\)?: must divide the global batch of 8 completions/);
  assert.equal(await demo.evaluate(() => document.getElementById('grpo').dataset.total ?? null), null);
  assert.deepEqual(demo.jsErrors, []);
});

test('the post-training view and a shared GPU: no horizontal overflow at 390 and 1280 px, axe clean in light and dark', async () => {
  const views = {
    posttrain: `model=qwen2.5-7b&gpu=h100&mode=grpo&framework=trl&policy=lora&use_vllm=true&max_completion_length=1024`,
    colocation: `model=llama-3.1-8b&engine=vllm&gpu_memory_utilization=0.6&gpu=rtx4090&speculative_method=ngram&enable_lora=true` +
      `&machine_jobs=${encodeURIComponent(JSON.stringify([{ model: 'bge-m3', engine: 'hf', batch: 32, seq: 512 }, { model: 'qwen3-0.6b', engine: 'vllm', gpu_memory_utilization: 0.3 }]))}`,
  };
  for (const [name, query] of Object.entries(views)) {
    const page = await openCalculator(env.context, `${env.server.url}index.html?${query}`);
    await page.evaluate(() => { document.getElementById('recipe-box').open = true; });
    await settled(page);
    assert.equal(await page.locator(name === 'posttrain' ? '#posttrain-panel' : '#colocation-answer').isVisible(), true, name);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        const { scroll, inner, wide } = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
          wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1
            && !e.closest('.table-wrap')).slice(0, 5).map((e) => e.id || e.className || e.tagName),
        }));
        assert.ok(scroll <= inner, `${name}, ${scheme} ${width}px: page is ${scroll}px wide (${wide.join(', ')})`);
        if (scheme === 'light') await screenshot(page, `${name}-${width}`, { fullPage: width === 390 });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.deepEqual(await axe(page), [], `${name}, ${scheme}`);
    }
    assert.deepEqual(page.jsErrors, []);
  }
});
