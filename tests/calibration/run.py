"""Calibration test: the C++ core's per-layer activation model and model state against PyTorch autograd.

usage: /usr/bin/python3 tests/calibration/run.py path/to/vramcalc

For every family (gpt2, llama, mixtral, deepseek_v3, and the encoder families bert and t5: a BERT layer, a T5
encoder block and a T5 decoder block with cross-attention, encoders.py) and several small shapes, writes an HF-style config.json
(real key names) and a training job, runs `vramcalc --config --job --json`, and asserts
|vramcalc - measured| / measured <= 3 % for `layer_activations.bytes`, where "measured" is what autograd saves
for backward in one block (measure.py; PyTorch >= 2 accounting, see /work/notes/calib-breakdown.md).  Checkpointed
blocks (checkpointing "full") are compared with what torch.utils.checkpoint keeps.  Then the model state after a
real optimizer step on a tiny Llama (AdamW, SGD, SGD + momentum; fp32 and bf16 params) against the CLI's
weights + gradients + optimizer terms.

Prints a table and a final line `N passed, N failed`; exits 1 on any failure, else 77 (CTest SKIP_RETURN_CODE)
when a section could not run because the CLI lacks its fields (no `layer_activations`, or it rejects
`precision`/`attention`/...), else 0.
"""
import json
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from families import make_block  # noqa: E402
from measure import checkpoint_saved_reentrant, measure_block  # noqa: E402
from model_state import state_after_step  # noqa: E402
from shapes import CASES, llama  # noqa: E402

TOLERANCE = 0.03
SKIP = 77
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


class Missing(Exception):
    """The CLI lacks a field this test needs."""


class Cli:
    def __init__(self, exe):
        self.exe = exe
        self.dir = tempfile.mkdtemp(prefix="vramcalc-calib-")

    def run(self, cfg, job):
        cfg_path, job_path = os.path.join(self.dir, "config.json"), os.path.join(self.dir, "job.json")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        with open(job_path, "w") as f:
            json.dump(job, f)
        r = subprocess.run([self.exe, "--config", cfg_path, "--job", job_path, "--json"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            msg = r.stderr.strip()
            if "unknown field" in msg or "must be one of" in msg:
                raise Missing(msg)
            raise RuntimeError(f"vramcalc failed ({r.returncode}): {msg}\nconfig {cfg}\njob {job}")
        return json.loads(r.stdout)


def cli_config(cfg):
    cfg = dict(cfg)
    if cfg["model_type"] == "deepseek_v3":
        cfg["first_k_dense_replace"] = 0  # every layer MoE: "one transformer block" is unambiguous
    return cfg


def train_job(dname, impl, ckpt, b, s, cfg=None):
    job = {"mode": "train", "dtype": dname, "precision": "pure", "attention": impl, "checkpointing": ckpt,
           "batch": b, "seq": s, "optimizer": "adamw"}
    if cfg and cfg.get("_encoder_seq"):
        job["encoder_seq"] = cfg["_encoder_seq"]  # a T5 decoder block attends to this many encoder tokens
    return job


# The attention kernels each family's Hugging Face code has: GPT-2 and T5 eager only, BERT eager and SDPA.
KERNELS = {"gpt2": ["eager"], "t5": ["eager"], "bert": ["eager", "sdpa"]}


def measured_block(cfg, dname, impl, b, s, ckpt):
    torch.manual_seed(0)
    dtype = DTYPES[dname]
    block, extras = make_block(cfg, impl, b, s, dtype)
    h = cfg.get("hidden_size") or cfg.get("d_model") or cfg["n_embd"]
    x = torch.randn(b, s, h, dtype=dtype, requires_grad=True)
    if ckpt == "full":
        return checkpoint_saved_reentrant(block, x, extras), {"block input": x.numel() * x.element_size()}
    r = measure_block(block, x, extras)
    parts = {k: v for k, v in r["parts"].items() if k != "scalar constants (0-d)"}
    return sum(parts.values()), parts


class Tally:
    def __init__(self):
        self.passed, self.failed, self.failures = 0, 0, []

    def check(self, row, measured, got, detail=None):
        err = (got - measured) / measured
        ok = abs(err) <= TOLERANCE
        self.passed += ok
        self.failed += not ok
        print(f"{row:<78s} {measured:>11d} {int(got):>11d} {100 * err:>+8.2f}%  {'ok' if ok else 'FAIL'}")
        if not ok:
            self.failures.append((row, measured, got, detail))


def activation_checks(cli, tally):
    print(f"{'family / shape / dtype / attention / checkpointing':<78s} {'measured':>11s} {'vramcalc':>11s}"
          f" {'error':>9s}")
    for fam, label, cfg, b, s in CASES:
        ccfg = cli_config(cfg)
        for impl in KERNELS.get(fam, ["eager", "flash", "sdpa"]):
            for dname in DTYPES:
                for ckpt in ("none", "full"):
                    if ckpt == "full" and impl != "eager":
                        continue  # checkpointed: the kept input does not depend on the attention kernel
                    measured, parts = measured_block(ccfg, dname, impl, b, s, ckpt)
                    out = cli.run(ccfg, train_job(dname, impl, ckpt, b, s, ccfg))
                    if "layer_activations" not in out:
                        raise Missing("the CLI's JSON has no layer_activations")
                    la = out["layer_activations"]
                    detail = (parts, {p["name"]: p["bytes"] for p in la.get("parts", [])})
                    tally.check(f"{fam} [{label}] {dname} {impl} ckpt={ckpt}", measured, la["bytes"], detail)


def state_checks(cli, tally):
    cfg = llama(64, 160, 8, 2)
    print(f"\n{'model state: tiny llama, optimizer, dtype (weights + gradients + optimizer)':<78s}")
    for dname in DTYPES:
        for opt in ("adamw", "sgd", "sgd_momentum"):
            st = state_after_step(cfg, DTYPES[dname], opt)
            job = {"mode": "train", "dtype": dname, "precision": "pure", "optimizer": opt,
                   "optimizer_dtype": dname, "batch": 2, "seq": 16}
            out = cli.run(cfg, job)
            terms = {t["key"]: t["bytes"] for t in out["terms"]}
            if out["model"]["params_total"] != st["count"]:
                print(f"  note: vramcalc counts {out['model']['params_total']} params, torch {st['count']}")
            for key, mine in (("weights", st["params"]), ("gradients", st["grads"]),
                              ("optimizer", st["optimizer"])):
                row = f"state {opt} {dname} {key}"
                if mine == 0:  # plain SGD keeps no state: the CLI must say 0 too
                    ok = terms[key] == 0
                    tally.passed += ok
                    tally.failed += not ok
                    print(f"{row:<78s} {0:>11d} {int(terms[key]):>11d} {'':>9s}  {'ok' if ok else 'FAIL'}")
                    continue
                tally.check(row, mine, terms[key])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    torch.set_num_threads(1)
    cli = Cli(sys.argv[1])
    tally = Tally()
    skipped = []
    for section in (activation_checks, state_checks):
        try:
            section(cli, tally)
        except Missing as e:
            skipped.append(section.__name__)
            print(f"SKIP {section.__name__}: vramcalc does not support this yet ({e})")
    for row, measured, got, detail in tally.failures:
        print(f"\nFAIL {row}: measured {measured}, vramcalc {int(got)}")
        if detail:
            mine, theirs = detail
            print("  measured parts: " + ", ".join(f"{k} {v}" for k, v in mine.items()))
            print("  vramcalc parts: " + ", ".join(f"{k} {v}" for k, v in theirs.items()))
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else SKIP if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
