#!/usr/bin/env python3
"""Writes models.json: Hugging Face config.json fields (the ones vramcalc reads)
for popular models, with the parameter count their publisher states.
Run once by hand from the repository root; models.json is committed.
The entries live in scripts/catalog/, one file per batch or family (each entry:
id, name, hf_id, config, published params, source); entries of the newer
architectures reuse the trimmed config.json fixtures in tests/fixtures/ (the
"_source" note there names the checkpoint). scripts/catalog/meta.py adds each
entry's family, licence, modality and release date, with their sources."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from catalog import classic, issue10, issue24, recent, recent_mm  # noqa: E402
from catalog.common import FIXTURES  # noqa: E402
from catalog.context import CONTEXT  # noqa: E402
from catalog.meta import meta_of  # noqa: E402

M = classic.MODELS + issue10.MODELS + issue24.MODELS + recent.MODELS + recent_mm.MODELS

# The checkpoint's own quantization_config, as its Hub config.json ships it, for every catalog
# model whose config has one (issues 23 and 35): one fixture each in tests/fixtures/quantization_config/
# (its "_source" names the config), so "Auto" weights follow the published checkpoint (DeepSeek-V3:
# FP8 blocks, gpt-oss: MXFP4). The other catalog models ship 16- or 32-bit weights and no
# quantization_config (docs/models.md, "Quantized checkpoints in the catalog").
QUANT = os.path.join(FIXTURES, "quantization_config")
for name in sorted(os.listdir(QUANT)):
    qid = name[:-len(".json")]
    at = [k for k, m in enumerate(M) if m[0] == qid]
    if len(at) != 1:
        raise SystemExit(f"make_models: {name} names no catalog model")
    i, n, hf, c, p, s = M[at[0]]
    c = dict(c)  # DeepSeek-V3, R1, R1-0528 and V3.1 share one dict: each gets its own copy
    c["quantization_config"] = json.load(open(os.path.join(QUANT, name)))["quantization_config"]
    M[at[0]] = (i, n, hf, c, p, s)

for (i, n, hf, c, p, s) in M:
    if i in CONTEXT:
        target = c["text_config"] if "text_config" in c and "hidden_size" not in c else c
        target.setdefault("max_position_embeddings", CONTEXT[i])

ids = [m[0] for m in M]
if len(ids) != len(set(ids)):
    raise SystemExit("make_models: duplicate ids " + str(sorted({i for i in ids if ids.count(i) > 1})))

out = {"models": [dict({"id": i, "name": n, "hf_id": hf, "published_params": p, "source": s}, **meta_of(i, c),
                       config=c)
                  for (i, n, hf, c, p, s) in M]}
with open("models.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(len(M), "models")
