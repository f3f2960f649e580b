# atlas-check: --from 2.14 --to 2.15
"""Checkpoint save/load for FSDP2 training.

Full checkpoints go through torch.distributed.checkpoint (DCP); the small "extra state"
file (step, RNG, data-loader position) is a plain torch.save.
"""
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


@dataclass
class CkptConfig:
    root: str
    keep_last: int = 3
    async_save: bool = True


def shard_model(model: torch.nn.Module, mesh, bf16: bool = True, fp32_reduce: bool = False):
    if fp32_reduce:
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    elif bf16:
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16)  # expect: call 215-fsdp2-reduce-dtype
    else:
        mp = MixedPrecisionPolicy()
    for block in model.layers:
        fully_shard(block, mesh=mesh, mp_policy=mp)
    fully_shard(model, mesh=mesh, mp_policy=mp)
    return model


class Checkpointer:
    def __init__(self, cfg: CkptConfig):
        self.cfg = cfg
        self._pending = None

    def _dir(self, step: int) -> str:
        return os.path.join(self.cfg.root, f"step-{step:08d}")

    def save(self, model, optim, step: int, extra: dict):
        model_sd, optim_sd = get_state_dict(model, optim)
        state = {"model": model_sd, "optim": optim_sd}
        path = self._dir(step)
        if self.cfg.async_save:
            if self._pending is not None:
                self._pending.result()
            self._pending = dcp.async_save(state, checkpoint_id=path)  # expect: call 215-dcp-strides
        else:
            dcp.save(state, checkpoint_id=path)  # expect: call 215-dcp-strides
        if dist.get_rank() == 0:
            torch.save(extra, os.path.join(path, "extra_state.pt"))

    def load(self, model, optim, step: int) -> dict:
        model_sd, optim_sd = get_state_dict(model, optim)
        state = {"model": model_sd, "optim": optim_sd}
        path = self._dir(step)
        dcp.load(state, checkpoint_id=path)
        set_state_dict(model, optim, model_state_dict=state["model"], optim_state_dict=state["optim"])
        return torch.load(os.path.join(path, "extra_state.pt"), weights_only=True)

    def export_consolidated(self, model, out: str):
        """Single-file weights for serving (rank 0 only)."""
        model_sd, _ = get_state_dict(model, [])
        full = {k: v.full_tensor() if hasattr(v, "full_tensor") else v for k, v in model_sd.items()}
        if dist.get_rank() == 0:
            torch.save(full, out)
        dist.barrier()


def latest_step(root: str):
    steps = [int(d.split("-")[1]) for d in os.listdir(root) if d.startswith("step-")]
    return max(steps) if steps else None
