"""Model state after a real optimizer step: bytes of parameters, their .grad and the optimizer's state tensors.

A tiny LlamaForCausalLM (embed_tokens, decoder layers from families.py, final norm, untied lm_head) takes one
training step with torch.optim.AdamW, SGD or SGD with momentum; params in fp32 or bf16 ("pure": the optimizer
state is created like the params, so it has their dtype).  torch >= 1.12 keeps Adam's `step` as a 0-d fp32 tensor
per parameter tensor: counted (4 bytes each).
"""
import torch
import torch.nn.functional as F
from torch import nn

from blocks import RMSNorm, causal_mask, rope_cos_sin
from families import LlamaBlock


class TinyLlama(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h = cfg["hidden_size"]
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], h)
        self.layers = nn.ModuleList(LlamaBlock(cfg, "eager") for _ in range(cfg["num_hidden_layers"]))
        self.norm = RMSNorm(h, cfg.get("rms_norm_eps", 1e-6))
        self.lm_head = nn.Linear(h, cfg["vocab_size"], bias=False)

    def forward(self, tokens):
        b, s = tokens.shape
        x = self.embed_tokens(tokens)
        d = self.cfg["hidden_size"] // self.cfg["num_attention_heads"]
        cos, sin = rope_cos_sin(b, s, d, self.cfg.get("rope_theta", 10000.0), x.dtype)
        mask = causal_mask(b, s, x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.lm_head(self.norm(x))


def make_optimizer(name, params):
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-3)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3)
    if name == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    raise ValueError(name)


def state_after_step(cfg, dtype, optimizer, b=2, s=16):
    """-> dict(params=, grads=, optimizer=, count=) in bytes after one optimizer step."""
    torch.manual_seed(0)
    model = TinyLlama(cfg).to(dtype).train()
    opt = make_optimizer(optimizer, model.parameters())
    tokens = torch.randint(0, cfg["vocab_size"], (b, s + 1))
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
    loss.backward()
    opt.step()

    def nbytes(tensors):
        seen = {}
        for t in tensors:
            seen[(t.storage().data_ptr(), t.storage().nbytes())] = t.storage().nbytes()
        return sum(seen.values())
    params = list(model.parameters())
    state = [v for st in opt.state.values() for v in st.values() if isinstance(v, torch.Tensor)]
    return {"params": nbytes(params), "grads": nbytes(p.grad for p in params if p.grad is not None),
            "optimizer": nbytes(state), "count": sum(p.numel() for p in params)}
