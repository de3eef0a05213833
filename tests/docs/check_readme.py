"""Doc test: the figures README.md quotes, checked against the CLI and the validation tables.

usage: /usr/bin/python3 tests/docs/check_readme.py path/to/vramcalc path/to/vramcalc_tests
(CTest `docs`; vramcalc_tests is the doctest binary, whose validation cases print every row's error)

README.md holds its figures where this script can read them:
- the catalog size ("100 models"; also in docs/models.md) against models.json and `vramcalc --list`, and the
  GPU catalog ("43 accelerators", "8 fabrics"; also in docs/cluster.md) against `vramcalc --list-gpus`;
- the worked example, the table after `<!-- checked: worked example -->`: every term and total of
  `vramcalc --model llama-3-8b --mode inference` and `--mode train`, as the CLI prints them, and the ratio to
  the raw weights; the sentences around it quote the same figures (prose_checks), and any other "NN.NN GB"
  in README is an error (a figure nothing checks);
- the accuracy summary, the table after `<!-- checked: accuracy -->`: one row per group of validation rows
  (GROUPS), with the median absolute error and "N of M within 15 %", recomputed from the error of every row
  of tests/validation/*.json as the core gives it (the doctest cases of test_validation.cpp,
  test_serving_validation.cpp and test_cluster_validation.cpp run each row and print its error); then the
  known misses and the bounds.
- the page's speed (its Limits line): each figure is one docs/page.md's Speed table states (bench/bench_page.mjs).
The docs are checked the same way where they quote the same kind of figure: docs/memory-model.md's worked
example (more CLI runs), docs/validation.md's tables (each row, by its id, shows the error the core gives).

A stale figure fails the test with a line naming the file, the figure, what the text says and what it should
say. Exit 0 when every figure holds, 1 otherwise.
"""
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(ROOT, "README.md")
VALIDATION = os.path.join(ROOT, "tests", "validation")
VALIDATION_DOC = os.path.join(ROOT, "docs", "validation.md")

# The unit-test cases that run every row of tests/validation/*.json and print its error.
VALIDATION_CASES = ("published memory figures,measured training runs,measured on our GPU,engine accounting*,published throughput,"
                    "local runs*")

# README's accuracy summary: label (the row's first cell), the validation file, and which of its rows (by id).
# Every row of every file belongs to exactly one group or to the bounds (compare at_most / at_least, kind bound).
GROUPS = [
    ("torchtune", "measured.json", r"^(FT|LORA|QLORA)-TT-"),
    ("fsdp_qlora", "measured.json", r"-FQ-"),
    ("torchtitan", "measured.json", r"^(TITAN-|AO-)"),
    ("Megatron-LM / NeMo", "measured.json", r"^(MEG-|H2-MEG-|H2-NEMO-)"),
    ("Lightning + DeepSpeed", "measured.json", r"^PL-"),
    ("LitGPT", "measured.json", r"^LITGPT-"),
    ("Hugging Face Trainer", "measured.json", r"^(HF-DOCS-|SMALL-HF-)"),
    ("Our H200 runs", "gpu_measured.json", r"^H200-"),
    ("vLLM weights", "serving.json", r"^(INF-VLLM-|VLLM-.*-WEIGHTS$)"),
    ("vLLM profile peak", "serving.json", r"^(ACT-VLLM-|H2-VLLMGFX-|VLLM-.*-ACTIVATIONS(-STAGE0|-RANK1)?$)"),
    ("vLLM non-torch memory", "serving.json", r"^VLLM-.*-NON_TORCH$"),
    ("vLLM CUDA graphs", "serving.json", r"^VLLM-.*-CUDA_GRAPHS$"),
    ("vLLM KV pool", "serving.json", r"^(KV-VLLM-|VLLM-.*-(KV_CACHE|POOL_TOKENS|POOL_BLOCKS|TORCH-ONLY|KV-RANK1|TOKENS|KV)$)"),
    ("SGLang", "serving.json", r"^SGL-"),
    ("llama.cpp", "serving.json", r"LCPP-"),
    ("Published formulas", "published.json", r"."),
    ("Cluster throughput", "throughput.json", r"^(torchtitan|llama3-405b|deepseek-v3|nemo\d*|llmfoundry)-"),
    ("vLLM / SGLang decode speed", "throughput.json", r"^(sglang|vllm|inferencex)-"),
    ("llama.cpp decode speed", "throughput.json", r"^llamacpp-"),
    ("MoE offload memory", "local.json", r"^LOC-A\d\d-.*-(GPU|CPU)-(WEIGHTS|KV|COMPUTE|TOTAL)$"),
    ("Ollama, MLX and unified memory", "local.json", r"^LOC-(B|C)\d\d-.*(WEIGHTS|KV|REQUIRED|PEAK|STOCK|SYSCTL)$"),
    ("Local speed", "local.json", r"-(TG|PP)$"),
    # Issue 36: post-training, speculative decoding and shared GPUs (test_posttrain_validation.cpp).
    ("Post-training (RL / DPO)", "posttrain.json", r"^RL-"),
    ("Speculative decoding", "posttrain.json", r"^SPEC-"),
    ("Co-location and multi-LoRA", "posttrain.json", r"^COLOC-"),
]
WITHIN = 15.0  # percent

failures = []
checked = 0


def fail(message):
    failures.append(message)


def check(what, readme_says, should_be):
    """One figure: the text's figure against the value it must have (both as text)."""
    global checked
    checked += 1
    if readme_says != should_be:
        where = "" if what.startswith(("README", "docs/")) else "README.md, "
        fail(f"{where}{what}: the text says {readme_says!r}, it should say {should_be!r}")


def run(args, may_fail=False):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0 and not may_fail:
        sys.exit(f"check_readme: {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def table_after(text, marker, where="README.md"):
    """The rows (lists of cells) of the Markdown table that follows `<!-- checked: marker -->`."""
    tag = f"<!-- checked: {marker} -->"
    at = text.find(tag)
    if at < 0:
        sys.exit(f"check_readme: {where} has no '{tag}' (the table this test reads)")
    rows = []
    for line in text[at + len(tag):].lstrip("\n").splitlines():
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not all(re.fullmatch(r":?-+:?", c) for c in cells):
            rows.append(cells)
    if len(rows) < 2:
        sys.exit(f"check_readme: {where}: no table after '{tag}'")
    return rows


def plain(cell):
    return re.sub(r"[*`]", "", cell).strip()


# ---- the CLI's report ------------------------------------------------------------------------------------

def report(cli, *args):
    """Per-GPU terms (label -> 'NN.NN'), their explanations, the total, the device total as text, the ratio to
    the raw weights and the fit table (GPU -> GPUs needed) of `vramcalc ARGS` (default model: llama-3-8b)."""
    out = run([cli, *args] if "--model" in args else [cli, "--model", "llama-3-8b", *args])
    terms, fits, details = {}, {}, {}
    total = ratio = device = params = None
    for line in out.splitlines():
        m = re.match(r"^  Total\s+(\d+\.\d\d)$", line)
        if m:
            total = m.group(1)
        m = re.match(r"^  (\S.*?)\s{2,}(\d+\.\d\d)   (.*)$", line)
        if m and total is None:  # the breakdown's rows come before its total
            terms[m.group(1)] = m.group(2)
            details[m.group(1)] = m.group(3)
        m = re.search(r"this job needs (\d+\.\d) x that", line)
        if m:
            ratio = m.group(1)
        m = re.match(r"^Parameters: (\d+\.\d\d [BMT]) total", line)
        if m:
            params = m.group(1)
        m = re.search(r", device (\d+\.\d\d [GT]B)\.$", line)
        if m:
            device = m.group(1)
        m = re.match(r"^  (.+?)\s+\d+(?:\.\d+)? (?:GB|TB|GiB|TiB)\s+(fits|no)\s+(.+)$", line)
        if m:
            fits[m.group(1)] = m.group(3)
    if total is None or ratio is None or not terms:
        sys.exit(f"check_readme: could not read the breakdown of `vramcalc {' '.join(args)}`:\n{out}")
    return {"terms": terms, "details": details, "total": total, "ratio": ratio, "fits": fits, "device": device,
            "params": params}


def check_worked_example(text, cli):
    serve, train = report(cli, "--mode", "inference"), report(cli, "--mode", "train")
    rows = table_after(text, "worked example")
    seen = set()
    for cells in rows[1:]:
        label = re.sub(r"\s*\(.*\)$", "", plain(cells[0]))
        for answer, cell, mode in ((serve, cells[1], "inference"), (train, cells[2], "train")):
            where = f"worked example, {label}, --mode {mode}"
            if label == "Total":
                check(where, plain(cell), answer["total"] + " GB")
            elif label.startswith("×"):
                check(where, plain(cell), answer["ratio"] + " ×")
            elif label in answer["terms"]:
                value = answer["terms"][label]
                check(where, plain(cell), "—" if value == "0.00" else value + " GB")
            else:
                fail(f"worked example: README's row {label!r} is not a term the CLI prints "
                     f"({', '.join(answer['terms'])})")
        seen.add(label)
    for answer, mode in ((serve, "inference"), (train, "train")):
        for label, value in answer["terms"].items():
            if value != "0.00" and label not in seen:
                fail(f"worked example: the CLI's {label} is {value} GB for --mode {mode}; README's table lacks the row")
    return serve, train


# ---- sentences around the worked example -----------------------------------------------------------------

def gb(value):
    return f"{value:.2f} GB"


def prose_checks(serve, train):
    """(what, pattern with one group, the text the group must be). Each pattern must match in README."""
    weights = float(train["terms"]["Weights"])
    gradients_full = float(re.search(r"= (\d+\.\d\d) GB; live at the peak", train["details"]["Gradients"]).group(1))
    model_states = weights + gradients_full + float(train["terms"]["Optimizer states"])
    kv_per_token = re.search(r"([\d.]+ KiB) per token", serve["details"]["KV cache"]).group(1)
    return [
        ("opening question: weights", r"with (\d+) GB of BF16 weights", f"{round(weights)}"),
        ("opening question: serving", r"only about (\d+) GB to serve", f"{round(float(serve['total']))}"),
        ("worked example: weights", r"parameters: (\d+\.\d\d GB) of BF16 weights", gb(weights)),
        ("worked example: KV per token", r"KV cache of ([\d.]+ KiB) per token", kv_per_token),
        ("worked example: model states", r"per parameter, (\d+\.\d\d GB),", gb(model_states)),
        ("worked example: serving total", r"Serving needs (\d+\.\d\d GB)", serve["total"] + " GB"),
        ("worked example: training total", r"Training needs (\d+\.\d\d GB)", train["total"] + " GB"),
        ("worked example: training ratio", r"Training needs [\d.]+ GB, (\d+\.\d) × the raw weights", train["ratio"]),
        ("worked example: gradients live at the peak", r"only (\d+\.\d\d GB) of gradients",
         train["terms"]["Gradients"] + " GB"),
        ("worked example: H100s for training", r"GPU holds it, (\d+) H100s do", train["fits"]["H100 80GB"]),
        ("worked example: parameters", r"Llama 3 8B has (\d+\.\d\d B) parameters", train["params"]),
        ("worked example: GPUs for serving", r"Serving needs [\d.]+ GB: it fits (\w+) RTX 4090",
         {"1": "one", "2": "two"}.get(serve["fits"]["RTX 4090 24GB"], serve["fits"]["RTX 4090 24GB"])),
    ]


def check_sentences(text, checks, where="README.md"):
    """Each (what, pattern, should_be): the pattern (spaces match any whitespace: sentences wrap) must match
    in the text, and every match's group 1 must read should_be. Returns the spans checked."""
    covered = []
    for what, pattern, should_be in checks:
        matches = list(re.finditer(pattern.replace(" ", r"\s+"), text))
        if not matches:
            fail(f"{what}: {where} no longer has a sentence matching {pattern!r} (update tests/docs/check_readme.py)")
        for m in matches:
            check(f"{where}, {what}", " ".join(m.group(1).split()), should_be)
            covered.append(m.span(1))
    return covered


def check_prose(text, serve, train):
    covered = check_sentences(text, prose_checks(serve, train))
    # Any other figure in GB with two decimals is one nothing checks.
    start = text.find("<!-- checked: worked example -->")
    table_end = text.find("\n\n", start)
    for m in re.finditer(r"\d+\.\d\d GB", text):
        inside_table = start <= m.start() < table_end
        if not inside_table and not any(a <= m.start() < b for a, b in covered):
            line = text.count("\n", 0, m.start()) + 1
            fail(f"README.md line {line}: {m.group(0)!r} is a figure no check covers "
                 "(check it through a sentence in prose_checks, tests/docs/check_readme.py, or move it to docs/)")


def check_memory_model_doc(cli, serve, train):
    """docs/memory-model.md's worked example: the same runs, and a few more."""
    text = read(os.path.join(ROOT, "docs", "memory-model.md"))
    full = report(cli, "--mode", "train", "--checkpointing", "full")
    batch8 = report(cli, "--mode", "train", "--batch", "8", "--seq", "2048")
    qlora = report(cli, "--mode", "qlora")
    qlora_none = report(cli, "--mode", "qlora", "--checkpointing", "none")
    dsv3 = report(cli, "--model", "deepseek-v3", "--dtype", "fp16")
    dsv3_q4 = report(cli, "--model", "deepseek-v3", "--dtype", "q4_k_m")
    t, s = train["terms"], serve["terms"]
    gradients_full = float(re.search(r"= (\d+\.\d\d) GB; live at the peak", train["details"]["Gradients"]).group(1))
    states = gb(float(t["Weights"]) + gradients_full + float(t["Optimizer states"]))
    checks = [
        ("parameters", r"Llama-3-8B has (\d+\.\d\d B) parameters", train["params"]),
        ("weights", r"parameters: (\d+\.\d\d GB) of BF16 weights", s["Weights"] + " GB"),
        ("inference KV cache", r"adds a (\d+\.\d\d GB) KV cache", s["KV cache"] + " GB"),
        ("inference working set", r"a (\d+\.\d\d GB) working set", s["Activations"] + " GB"),
        ("inference overhead", r"and (\d+\.\d\d GB) overhead: [\d.]+ GB, one", s["Overhead"] + " GB"),
        ("inference total", r"overhead: (\d+\.\d\d GB), one", serve["total"] + " GB"),
        ("model states", r"per parameter \((\d+\.\d\d GB)\)", states),
        ("training total", r"loss backward at (\d+\.\d\d GB)", train["total"] + " GB"),
        ("gradients at the peak", r"(\d+\.\d\d GB) of gradients live", t["Gradients"] + " GB"),
        ("activations", r"(\d+\.\d\d GB) of activations", t["Activations"] + " GB"),
        ("logits and loss", r"(\d+\.\d\d GB) of logits and loss", t["Logits and loss"] + " GB"),
        ("training overhead", r"(\d+\.\d\d GB) overhead, [\d.]+ × the raw", t["Overhead"] + " GB"),
        ("training ratio", r"overhead, (\d+\.\d) × the raw weights", train["ratio"]),
        ("full checkpointing", r"With full checkpointing it is (\d+\.\d\d GB)", full["total"] + " GB"),
        ("full checkpointing ratio", r"With full checkpointing it is [\d.]+ GB \((\d+\.\d) ×\)", full["ratio"]),
        ("batch 8 × 2048", r"at batch 8 × 2048, (\d+\.\d\d GB)", batch8["total"] + " GB"),
        ("batch 8 × 2048 ratio", r"at batch 8 × 2048, [\d.]+ GB \((\d+\.\d) ×\)", batch8["ratio"]),
        ("QLoRA", r"QLoRA at 4096 tokens: (\d+\.\d\d GB)", qlora["total"] + " GB"),
        ("QLoRA without checkpointing", r"(\d+\.\d\d GB) without checkpointing", qlora_none["total"] + " GB"),
        ("DeepSeek-V3 FP16 weights", r"DeepSeek-V3 at FP16 holds (\d+\.\d\d TB)",
         re.search(r"= (\d+\.\d\d TB)$", dsv3["details"]["Weights"]).group(1)),
        ("DeepSeek-V3 FP16 total", r"\((\d+\.\d\d TB) with overhead", dsv3["device"]),
        ("DeepSeek-V3 H100s", r"with overhead: (\d+) H100s", dsv3["fits"]["H100 80GB"]),
        ("DeepSeek-V3 B200s", r"H100s or (\d+) B200s", dsv3["fits"]["B200 192GB"]),
        ("DeepSeek-V3 Q4_K_M weights", r"brings the weights to (\d+\.\d\d GB)", dsv3_q4["terms"]["Weights"] + " GB"),
    ]
    with open(os.path.join(VALIDATION, "measured.json"), encoding="utf-8") as f:
        synced = sum(1 for r in json.load(f)["rows"] if r["job"].get("sync_module_states") and "-FQ-" in r["id"])
    checks.append(("fsdp_qlora rows", r"fsdp_qlora's loading \(its (\d+) benchmark rows", str(synced)))
    check_sentences(text, checks, "docs/memory-model.md")


# ---- catalogs -----------------------------------------------------------------------------------------------

def check_counts(cli, texts):
    with open(os.path.join(ROOT, "models.json"), encoding="utf-8") as f:
        in_json = len(json.load(f)["models"])
    listed = len([line for line in run([cli, "--list"]).splitlines() if line.strip()])
    if listed != in_json:
        fail(f"catalog: models.json holds {in_json} models but `vramcalc --list` lists {listed}")
    gpu_lines = [line.split("\t") for line in run([cli, "--list-gpus"]).splitlines() if line.strip()]
    gpus = sum(1 for f in gpu_lines if len(f) > 2)
    fabrics = sum(1 for f in gpu_lines if len(f) == 2)
    for name, text in texts:
        for m in re.finditer(r"\b(\d+) models\b", text):
            check(f"{name}: catalog size", m.group(1), str(listed))
        for m in re.finditer(r"\b(\d+) accelerators\b", text):
            check(f"{name}: GPU catalog size", m.group(1), str(gpus))
        for m in re.finditer(r"\b(\d+) fabrics\b", text):
            check(f"{name}: fabrics", m.group(1), str(fabrics))
    if not re.search(r"\b\d+ models\b", texts[0][1]):
        fail("README.md no longer says how many models the catalog holds ('N models')")


# ---- validation rows ----------------------------------------------------------------------------------------

def validation_rows(tests):
    """Every validation row: id -> {file, error (percent, as printed), known_miss, bound}."""
    rows = {}
    for name in sorted(os.listdir(VALIDATION)):
        if name.endswith(".json"):
            with open(os.path.join(VALIDATION, name), encoding="utf-8") as f:
                for row in json.load(f)["rows"]:
                    bound = row.get("compare") in ("at_most", "at_least") or row.get("kind") == "bound"
                    rows[row["id"]] = {"file": name, "bound": bound, "known_miss": "known_miss" in row}
    out = run([tests, f"--test-case={VALIDATION_CASES}", "--no-version"], may_fail=True)
    printed = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+\S+\s+\S+\s+\S+\s+([+-]\d+\.\d+)%", line)
        if m and m.group(1) in rows:
            printed[m.group(1)] = m.group(2)
    for row_id, row in rows.items():
        if row_id not in printed:
            fail(f"validation: row {row_id} ({row['file']}) was not printed by {os.path.basename(tests)} "
                 f"-tc='{VALIDATION_CASES}'")
        else:
            row["error_text"] = printed[row_id]
            row["error"] = float(printed[row_id])
    if "Status: SUCCESS" not in out:
        fail("validation: the unit tests that run the validation rows fail; see `ctest -R core_unit_tests -V`")
    return rows


def percent(value, decimals=1):
    return f"{value:.{decimals}f} %"


def check_accuracy(text, rows):
    groups = {}
    for row_id, row in rows.items():
        if row["bound"] or "error" not in row:
            continue
        names = [label for label, file, pattern in GROUPS if file == row["file"] and re.search(pattern, row_id)]
        if len(names) != 1:
            fail(f"accuracy summary: row {row_id} of {row['file']} belongs to {len(names)} groups "
                 f"({', '.join(names) or 'none'}); give it one in GROUPS, tests/docs/check_readme.py")
            continue
        groups.setdefault(names[0], []).append(abs(row["error"]))
    table = table_after(text, "accuracy")
    header = [plain(c).lower() for c in table[0]]
    try:
        median_col = next(i for i, h in enumerate(header) if h.startswith("median"))
        within_col = next(i for i, h in enumerate(header) if h.startswith("within"))
    except StopIteration:
        sys.exit("check_readme: the accuracy table needs a 'median ...' and a 'within 15 %' column")
    in_readme = set()
    for cells in table[1:]:
        label = plain(cells[0])
        in_readme.add(label)
        if label not in groups:
            fail(f"accuracy summary: README's row {label!r} is no group of tests/docs/check_readme.py GROUPS")
            continue
        errors = groups[label]
        check(f"accuracy summary, {label}: median error", plain(cells[median_col]), percent(statistics.median(errors)))
        within = sum(1 for e in errors if e <= WITHIN)
        check(f"accuracy summary, {label}: within 15 %", plain(cells[within_col]), f"{within} of {len(errors)}")
    for label in groups:
        if label not in in_readme:
            fail(f"accuracy summary: README has no row for {label!r}")

    # Known misses: the rows marked known_miss, each with its error.
    m = re.search(r"^Known misses: (.*)$", text, re.M)
    if not m:
        fail("accuracy summary: README has no line 'Known misses: `ID` (error), ...'")
    else:
        named = dict(re.findall(r"`([^`]+)` \(([^)]*)\)", m.group(1)))
        # Memory misses are named here; the planner's throughput misses in docs/validation.md's throughput
        # tables, and the serving engines' (many, each with its reason) in its serving table: README counts them.
        misses = {i: r for i, r in rows.items()
                  if r["known_miss"] and "error" in r and r["file"] not in ("throughput.json", "serving.json", "local.json")}
        for row_id in sorted(set(named) | set(misses)):
            if row_id not in misses:
                fail(f"known misses: README names {row_id}, which is not a known miss in tests/validation")
            elif row_id not in named:
                fail(f"known misses: README does not name {row_id} ({misses[row_id]['error_text']} %)")
            else:
                check(f"known misses, {row_id}", named[row_id].replace("−", "-"), f"{misses[row_id]['error']:+.1f} %")
    # "N of the M <kind> rows are known misses", for each validation file the summary counts.
    for file, kind in (("local.json", "local"), ("serving.json", "engine")):
        group = [r for r in rows.values() if r["file"] == file and "error" in r]
        m = re.search(rf"(\d+) of the (\d+) {kind} rows are known misses", text)
        if not m:
            fail(f"accuracy summary: README has no 'N of the M {kind} rows are known misses'")
        else:
            check(f"accuracy summary: {kind} known misses", m.group(0),
                  f"{sum(1 for r in group if r['known_miss'])} of the {len(group)} {kind} rows are known misses")
    # Bounds: rows that must stay above or below a published figure.
    bounds = [r for r in rows.values() if r["bound"]]
    m = re.search(r"(\d+) of (\d+) bounds hold", text)
    if not m:
        fail("accuracy summary: README has no 'N of M bounds hold'")
    else:
        check("accuracy summary: bounds", m.group(0), f"{len(bounds)} of {len(bounds)} bounds hold")


def check_validation_doc(rows):
    """docs/validation.md: every table row whose first cell is a row id shows that row's error."""
    text = read(VALIDATION_DOC)
    seen = set()
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [plain(c) for c in line.strip().strip("|").split("|")]
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        if header is None:
            header = [c.lower() for c in cells]
            continue
        row_id = cells[0]
        if row_id in rows and "error" in header and "error" in rows[row_id]:
            cell = cells[header.index("error")].replace("−", "-")
            shown = re.match(r"[+-]?\d+\.\d+ ?%", cell)
            decimals = len(rows[row_id]["error_text"].split(".")[1])
            check(f"docs/validation.md, {row_id}: error", shown.group(0).replace(" ", "") if shown else cell,
                  f"{rows[row_id]['error']:+.{decimals}f}%")
            if rows[row_id]["known_miss"] and rows[row_id]["file"] == "serving.json" and "known miss" not in cell:
                fail(f"docs/validation.md, {row_id}: a known miss whose error cell does not say '(known miss)'")
            seen.add(row_id)
    published = sum(1 for r in rows.values() if r["file"] == "published.json")
    check_sentences(text, [("published figures", r"published.json` holds (\d+) published figures", str(published))],
                    "docs/validation.md")
    measured = [r for r in rows.values() if r["file"] == "measured.json" and "error" in r]
    m = re.search(r"(\d+ of \d+) rows are within 15 %", text)
    if not m:
        fail("docs/validation.md has no 'N of M rows are within 15 %' for the measured training runs")
    else:
        within = sum(1 for r in measured if abs(r["error"]) <= WITHIN)
        check("docs/validation.md: measured training runs within 15 %", m.group(1), f"{within} of {len(measured)}")
    for row_id in rows:
        if row_id not in seen:
            fail(f"docs/validation.md has no table row for {row_id} (first cell: the id, with an 'error' column)")


def check_page_speed(text):
    """README's page figures (its Limits line: ms, and KiB gzip) are the ones docs/page.md's Speed section states
    (measured by bench/bench_page.mjs)."""
    line = re.search(r"- The page is .*?\n(?=- |\n)", text, re.S)
    if not line:
        fail("README.md: the Limits line on the page's size and speed is missing")
        return
    speed = read(os.path.join(ROOT, "docs", "page.md"))
    table = speed[speed.index("### Speed (issue 23)"):]
    table = table[:table.index("What changed")]
    for figure in re.findall(r"(\d[\d,.]*) ms\b", line.group(0)):
        if figure in ("16", "300"):  # the targets
            continue
        check(f"README page speed {figure} ms", figure if figure in table else "(not in docs/page.md's Speed table)", figure)
    size = re.search(r"(\d+) KiB gzip", line.group(0))
    measured = re.search(r"([\d.]+) KiB gzip", table)
    if not size or not measured:
        fail("README.md / docs/page.md: the page's gzip size is missing")
    else:
        check("README page size (KiB gzip)", size.group(1), str(round(float(measured.group(1)))))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cli, tests = sys.argv[1], sys.argv[2]
    text = read(README)
    check_counts(cli, [("README.md", text),
                       ("docs/models.md", read(os.path.join(ROOT, "docs", "models.md"))),
                       ("docs/cluster.md", read(os.path.join(ROOT, "docs", "cluster.md")))])
    serve, train = check_worked_example(text, cli)
    check_prose(text, serve, train)
    check_memory_model_doc(cli, serve, train)
    rows = validation_rows(tests)
    check_accuracy(text, rows)
    check_validation_doc(rows)
    check_page_speed(text)
    lines = len(text.splitlines())
    if lines > 300:
        fail(f"README.md has {lines} lines; the front page stays within 300 (the detail goes to docs/)")
    for message in failures:
        print("STALE:", message)
    print(f"check_readme: {checked} figures checked, {len(failures)} stale")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
