#!/usr/bin/env python3
"""Fit the cluster planner's named parameters and cross-validate them, leave one source out.

usage: python3 scripts/calibrate_planner.py build/vramcalc [--write]

The planner's physical model (sustained rates, slowest GPU, overlap interference, NCCL's collectives by size,
kernels by shape, decode kernels at their measured graph-replay cost) has two fitted parameters:
- `gap_fraction`, the GPU-idle time between kernels per second of kernel time, one value per training framework
  family (PyTorch eager, PyTorch compiled, Megatron / NeMo). It enters a training step linearly: step(k) =
  step(0) + k × compute, so one planner run per row gives every prediction as a function of k.
- `step_host_s`, the host time per decode step on the critical path of vLLM's V0 engine (0.6 - 0.7), one value
  (family "vllm_v0"). It enters every serving time linearly (the decode step, each prefill chunk), so two planner
  runs per row (0 and 1 ms, through the request's `step_cpu_ms`) give every prediction as a function of it.

The calibration split is every prediction row of tests/validation/throughput.json whose `split` is
"calibration" (rows marked "holdout" are never fitted on: they are predicted with the full fit only). Rows
are grouped by their `source` (one publication, one benchmark table). For each source, k is refitted on the
rows of the other sources (per family; a family with no rows left keeps k = 0) and the held-out source's rows
are predicted with it: those are the cross-validated errors the tests and README report. The range of a
figure is the shortest interval of measured ÷ predicted that holds at least 80 % of the cross-validated
calibration rows of its workload (training, serving).

--write updates tests/validation/planner_fit.json; without it the script prints the fit and checks that the
committed file agrees (exit 1 when it does not).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "tests", "validation", "throughput.json")
OUT = os.path.join(ROOT, "tests", "validation", "planner_fit.json")
FAMILIES = ("torch_eager", "torch_compiled", "megatron")
SERVE_FAMILIES = ("vllm_v0",)
COVER = 0.8
RATE_QUANTITIES = {"tokens_per_s_per_gpu", "mfu", "decode_tokens_per_s", "decode_tokens_per_s_replica"}


def run_row(cli, row, step_cpu_ms=None):
    """The planner's answer for a row, with no kernel gaps (the fitted parameter at 0); a serving row with its
    host time per step set when step_cpu_ms is given."""
    cluster = dict(row["cluster"])
    training = row["job"].get("mode", "train") != "inference"
    if training:
        cluster["gap_fraction"] = 0
    elif step_cpu_ms is not None:
        cluster["step_cpu_ms"] = step_cpu_ms
    with tempfile.TemporaryDirectory() as d:
        job_path, cluster_path = os.path.join(d, "job.json"), os.path.join(d, "cluster.json")
        with open(job_path, "w") as f:
            json.dump(row["job"], f)
        with open(cluster_path, "w") as f:
            json.dump(cluster, f)
        done = subprocess.run([cli, "--model", row["model"], "--job", job_path, "--cluster", cluster_path, "--json"],
                              capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"calibrate_planner: {row['id']}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def serve_quantity(serve, q, row):
    """A serving quantity from the decode step, the prefill and TPOT (each linear in the host time)."""
    c = serve["concurrency"]
    if q == "decode_tokens_per_s":
        return 1 / serve["token_s"]
    if q == "decode_tokens_per_s_replica":
        return c / serve["token_s"]
    if q == "tpot_s":
        return serve["tpot_s"]
    if q == "batch_latency_s":
        # vLLM benchmark_latency: one generate() call, the batch's prompts prefilled together (they read the
        # weights once, as one prompt does) and output_tokens - 1 decode steps after the first token.
        return serve["prefill_s"] + (row["cluster"]["output_tokens"] - 1) * serve["token_s"]
    return None


SERVE_FIELDS = ("token_s", "prefill_s", "tpot_s", "concurrency")


def quantity(answer, q, row=None):
    if "serve" in answer and row is not None:
        v = serve_quantity(answer["serve"], q, row)
        if v is not None:
            return v
    if q == "tokens_per_s_per_gpu":
        return answer["train"]["tokens_per_s_per_gpu"]
    if q == "mfu":
        return answer["train"]["mfu"]
    if q == "gpu_hours_per_trillion_tokens":
        return 1e12 / answer["train"]["tokens_per_s"] * answer["hardware"]["gpus"] / 3600
    if q == "decode_tokens_per_s":
        return answer["serve"]["tokens_per_s_per_seq"]
    if q == "decode_tokens_per_s_replica":
        return answer["serve"]["tokens_per_s_replica"]
    if q == "decode_bound_tokens_per_s":
        return answer["serve"]["bound_tokens_per_s"]
    sys.exit(f"calibrate_planner: unknown quantity {q}")


def family(row, answer):
    """The framework family whose gaps apply (as core/cluster/calibration.cpp gap_family)."""
    job = row["job"]
    if job.get("framework") in ("megatron", "nemo"):
        return "megatron"
    text = " ".join(a["text"] for a in answer["assumptions"] if a["key"] == "gap_fraction")
    return "torch_compiled" if "compiled" in text else "torch_eager"


class Row:
    def __init__(self, row, answer, cli):
        self.id, self.source, self.q = row["id"], row["source_group"], row["quantity"]
        self.row = row
        self.split = row.get("split", "calibration")
        self.measured = row["expected"]
        self.training = "train" in answer
        self.rate = self.q in RATE_QUANTITIES
        self.family = family(row, answer) if self.training else (answer["serve"].get("host_family") or None)
        if self.training:
            self.pred0 = quantity(answer, self.q)
            self.step0 = answer["train"]["step_s"]
            self.compute = next(t["time_s"] for t in answer["train"]["terms"] if t["key"] == "compute")
        elif self.family:
            # The serving fields at 0 and at 1 ms of host time per step: each moves linearly with it.
            zero = run_row(cli, row, 0)["serve"]
            one = run_row(cli, row, 1)["serve"]
            self.fields0 = {f: zero[f] for f in SERVE_FIELDS}
            self.slope = {f: one[f] - zero[f] for f in SERVE_FIELDS}  # per ms
            self.pred0 = self.predicted(0)
        else:
            self.pred0 = quantity(answer, self.q, row)

    def predicted(self, k):
        """The prediction with the family's parameter k (gap share; host ms per step)."""
        if self.training:
            if k == 0:
                return self.pred0
            grow = (self.step0 + k * self.compute) / self.step0
            return self.pred0 / grow if self.rate else self.pred0 * grow
        if not self.family:
            return self.pred0
        fields = {f: self.fields0[f] + k * self.slope[f] for f in SERVE_FIELDS}
        return serve_quantity(fields, self.q, self.row)

    def log_error(self, k):
        return math.log(self.predicted(k) / self.measured)

    def rate_ratio(self, k):
        """measured ÷ predicted as a rate (a time-like quantity inverted)."""
        ratio = self.measured / self.predicted(k)
        return ratio if self.rate else 1 / ratio


def fit(rows, hi=2.0):
    """k ≥ 0 minimising the squared log errors of these rows (golden section on [0, hi])."""
    if not rows:
        return 0.0
    f = lambda k: sum(r.log_error(k) ** 2 for r in rows)
    lo = 0.0
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    for _ in range(100):
        if f(a) < f(b):
            hi = b
        else:
            lo = a
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    return round((lo + hi) / 2, 4)


def shortest_cover(values):
    """The shortest [lo, hi] holding ceil(80 %) of the values."""
    v = sorted(values)
    need = math.ceil(COVER * len(v))
    best = None
    for i in range(len(v) - need + 1):
        w = (v[i], v[i + need - 1])
        if best is None or w[1] - w[0] < best[1] - best[0]:
            best = w
    return best


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli, write = sys.argv[1], "--write" in sys.argv
    table = json.load(open(TABLE))
    rows = []
    for row in table["rows"]:
        if row.get("kind") == "bound":
            continue
        rows.append(Row(row, run_row(cli, row), cli))
    calib = [r for r in rows if r.split == "calibration"]
    # Serving: host ms per step, searched on [0, 20].
    hi = lambda r: 2.0 if r.training else 20.0
    full = {fam: fit([r for r in calib if r.training and r.family == fam]) for fam in FAMILIES}
    full.update({fam: fit([r for r in calib if not r.training and r.family == fam], 20.0) for fam in SERVE_FAMILIES})
    out_rows = []
    for r in rows:
        if r.family is None:
            k = 0.0
        elif r.split == "calibration":
            rest = [o for o in calib if o.source != r.source and o.training == r.training and o.family == r.family]
            k = fit(rest, hi(r))
        else:
            k = full[r.family]
        cv = r.predicted(k)
        err = cv / r.measured - 1
        out = {"id": r.id, "source_group": r.source, "split": r.split, "family": r.family, "quantity": r.q,
               "measured": r.measured}
        out["gap_fraction" if r.training else "step_host_ms"] = k
        out.update({"predicted": round(cv, 6), "error": round(err, 6), "ratio": r.rate_ratio(k)})
        out_rows.append(out)
    ranges = {}
    for workload in ("training", "serving"):
        ratios = [o["ratio"] for o, r in zip(out_rows, rows) if r.split == "calibration" and r.training == (workload == "training")]
        lo, hi = shortest_cover(ratios)
        lo, hi = math.floor((lo - 1) * 1e4) / 1e4, math.ceil((hi - 1) * 1e4) / 1e4  # rounded outwards
        covered = sum(1 for x in ratios if 1 + lo - 1e-9 <= x <= 1 + hi + 1e-9)
        ranges[workload] = {"lo": lo, "hi": hi, "covered": covered, "rows": len(ratios)}
    for o, r in zip(out_rows, rows):  # whether the range holds the measurement
        rr = ranges["training" if r.training else "serving"]
        x = o.pop("ratio")
        o["in_range"] = (1 + rr["lo"] - 1e-9) <= x <= (1 + rr["hi"] + 1e-9)
    result = {
        "about": "Written by scripts/calibrate_planner.py: the fitted kernel-gap share per training framework family and "
                 "the fitted host time per decode step of vLLM's V0 engine (all calibration rows), and for every row the "
                 "value fitted without its source (leave one source out), the prediction and error with it, and whether "
                 "the range holds the measurement.",
        "gap_fraction": {fam: full[fam] for fam in FAMILIES},
        "step_host_ms": {fam: full[fam] for fam in SERVE_FAMILIES},
        "ranges": ranges,
        "rows": out_rows,
    }
    for workload in ("training", "serving"):
        errs = [abs(o["error"]) for o, r in zip(out_rows, rows) if r.training == (workload == "training") and r.split == "calibration"]
        errs.sort()
        med = errs[len(errs) // 2] if len(errs) % 2 else (errs[len(errs) // 2 - 1] + errs[len(errs) // 2]) / 2
        print(f"{workload}: {len(errs)} calibration rows, cross-validated median |error| {100 * med:.1f} %, "
              f"range {100 * ranges[workload]['lo']:+.1f} % … {100 * ranges[workload]['hi']:+.1f} % holds "
              f"{ranges[workload]['covered']} of {ranges[workload]['rows']}")
    holdout = [abs(o["error"]) for o in out_rows if o["split"] == "holdout"]
    if holdout:
        holdout.sort()
        print(f"holdout: {len(holdout)} rows never fitted on, median |error| {100 * holdout[len(holdout) // 2]:.1f} %")
    print("gap_fraction (all calibration rows):", json.dumps({fam: full[fam] for fam in FAMILIES}))
    print("step_host_ms (all calibration rows):", json.dumps({fam: full[fam] for fam in SERVE_FAMILIES}))
    text = json.dumps(result, indent=1, ensure_ascii=False) + "\n"
    if write:
        with open(OUT, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote", os.path.relpath(OUT, ROOT))
        return 0
    committed = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
    if committed != text:
        print("tests/validation/planner_fit.json differs from this fit: run with --write and update core/cluster/calibration.cpp")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
