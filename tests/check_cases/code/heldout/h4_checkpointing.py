# atlas-check: --from 2.14 --to 2.15
import os

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.utils.checkpoint import create_selective_checkpoint_contexts as sac_ctx, CheckpointPolicy


class Checkpointer:
    def __init__(self, root):
        self.root = root

    def save(self, model, optim, step):
        msd, osd = get_state_dict(model, optim)
        path = os.path.join(self.root, f"step_{step:07d}")
        dcp.save({"model": msd, "optim": osd}, checkpoint_id=path)  # expect: call 215-dcp-strides
        if dist.get_rank() == 0:
            torch.save({"step": step}, os.path.join(path, "meta.pt"))

    def save_async(self, state, step):
        return dcp.async_save(state, checkpoint_id=f"{self.root}/async_{step}")  # expect: call 215-dcp-strides

    def load(self, model, optim, path):
        msd, osd = get_state_dict(model, optim)
        state = {"model": msd, "optim": osd}
        dcp.load(state, checkpoint_id=path)
        set_state_dict(model, optim, model_state_dict=state["model"], optim_state_dict=state["optim"])


def policy(ctx, op, *args, **kwargs):
    if op == torch.ops.aten.mm.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def context_fn():
    return sac_ctx(policy)  # expect: call 215-sac-ordered-effects
