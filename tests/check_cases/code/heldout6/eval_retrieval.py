# atlas-check: --from 2.12 --to 2.15
"""Offline evaluation of the dual-encoder retriever: recall@k, MRR and calibration.

    python eval_retrieval.py --ckpt runs/dual/last.pt --queries data/dev.jsonl
"""
import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

if sys.version_info >= (3, 11):
    import tomllib
    _MPS_AT_IMPORT = None  # decided lazily by pick_device()
else:  # the Python 3.10 images stay on torch 2.14, the last release with 3.10 wheels
    import tomli as tomllib
    _MPS_AT_IMPORT = torch.backends.mps.is_available()  # expect: name 215-mps-macos15 guarded

from retriever.model import DualEncoder


def pick_device(prefer: str = "auto") -> torch.device:
    if prefer != "auto":
        return torch.device(prefer)
    if _MPS_AT_IMPORT:
        return torch.device("mps")
    if torch.cuda.is_available():
        return torch.device("cuda")
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():  # expect: name 215-mps-macos15 guarded
        return torch.device("mps")
    return torch.device("cpu")


def mps_ready() -> bool:
    # the laptop runner: MPS if the build has it and the OS allows it
    return torch.backends.mps.is_built() and torch.backends.mps.is_available()  # expect: name 215-mps-macos15


@torch.no_grad()
def embed(model, batches, device):
    out = []
    for batch in batches:
        z = model.encode(batch.to(device))
        out.append(F.normalize(z, dim=-1).clamp(-1.0, 1.0))
    return torch.cat(out)


@torch.inference_mode()
def scores(q: torch.Tensor, d: torch.Tensor, temperature: float) -> torch.Tensor:
    return (q @ d.T / temperature).clip_(-50.0, 50.0)


def recall_at_k(sim: torch.Tensor, gold: torch.Tensor, k: int) -> float:
    topk = sim.topk(k, dim=-1).indices
    return (topk == gold[:, None]).any(-1).float().mean().item()


def mrr(sim: torch.Tensor, gold: torch.Tensor) -> float:
    ranks = (sim > sim.gather(1, gold[:, None])).sum(-1) + 1
    return (1.0 / ranks.float()).mean().item()


def calibration_loss(logits: torch.Tensor, labels: torch.Tensor, temperature: torch.Tensor) -> torch.Tensor:
    """Fit a temperature on the dev set (this one needs gradients)."""
    t = temperature.clamp(min=0.05)  # expect: method 214-clamp-grad
    return F.cross_entropy(logits / t, labels)


def fit_temperature(logits, labels, steps: int = 200) -> float:
    temperature = torch.ones((), requires_grad=True)
    opt = torch.optim.LBFGS([temperature], lr=0.1, max_iter=steps)

    def closure():
        opt.zero_grad()
        loss = calibration_loss(logits, labels, temperature)
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad(), torch.autocast("cpu", enabled=False):
        temperature.clip_(0.05, 20.0)
    return float(temperature)


def margin_loss(pos: torch.Tensor, neg: torch.Tensor, margin: float = 0.2) -> torch.Tensor:
    return torch.clip(margin - pos + neg, min=0.0).mean()  # expect: call 214-clamp-grad


def load_model(ckpt: str, device) -> DualEncoder:
    # weights_only has been the default for years; the checkpoint is a plain state_dict
    model = DualEncoder.from_config(tomllib.loads(Path("configs/dual.toml").read_text()))
    model.load_state_dict(torch.load(ckpt, map_location="cpu"))
    return model.to(device).eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--k", type=int, nargs="+", default=[1, 5, 20])
    args = ap.parse_args()

    device = pick_device(args.device)
    model = load_model(args.ckpt, device)
    rows = [json.loads(line) for line in Path(args.queries).read_text().splitlines()]
    q = embed(model, model.tokenize([r["query"] for r in rows], batch_size=256), device)
    d = embed(model, model.tokenize([r["doc"] for r in rows], batch_size=256), device)
    gold = torch.arange(len(rows), device=q.device)
    sim = scores(q, d, temperature=0.05)
    report = {f"recall@{k}": recall_at_k(sim, gold, k) for k in args.k}
    report["mrr"] = mrr(sim, gold)
    report["temperature"] = fit_temperature(sim.float().cpu(), gold.cpu())
    report["device"] = str(device)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
