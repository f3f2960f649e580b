# atlas-check: --from 2.14 --to 2.15
# expect-skip
"""Work in progress: top-p sampler (does not parse yet)."""
import torch
import torch.distributed as dist


def top_p(logits: torch.Tensor, p: float = 0.9):
    probs = torch.softmax(logits, dim=-1)
    sorted_probs, idx = probs.sort(dim=-1, descending=True)
    keep = sorted_probs.cumsum(-1) <= p
    keep[..., 0] = True
    return idx.gather(-1, torch.multinomial(sorted_probs * keep, 1)


def setup():
    dist.init_process_group(backend="nccl")
    if torch.backends.mps.is_available()
        return "mps"
