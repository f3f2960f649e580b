# atlas-check: --from 2.13 --to 2.15
import torch
import torch.nn.functional as F
from torch.utils import mkldnn
from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts
import torch.distributed.checkpoint as dcp


def to_mkldnn_conv(conv):
    return mkldnn.MkldnnConv2d(conv, torch.float32)


def loss_fn(logits, target):
    probs = F.softmax(logits, dim=-1).clamp(min=1e-6)  # expect: method 214-clamp-grad
    return -(target * probs.log()).sum(-1).mean()


def make_options():
    return torch.nn.LinearCrossEntropyOptions(acc_policy="balanced")  # expect: keyword 214-acc-policy-balanced


def sac_policy(ctx, op, *args, **kwargs):
    return "recompute"


def forward_sac(block, x):
    ctx_fn = lambda: create_selective_checkpoint_contexts(sac_policy)  # expect: call 215-sac-ordered-effects
    return checkpoint(block, x, use_reentrant=False, context_fn=ctx_fn)


def save(state, step):
    dcp.save(state, checkpoint_id=f"ckpt/{step}")  # expect: call 215-dcp-strides


def device():
    if torch.backends.mps.is_available():  # expect: name 215-mps-macos15
        return torch.device("mps")
    return torch.device("cpu")


def compiled(model):
    return torch.compile(model, shapes_spec=None)  # expect: param api-diff:torch.compile
