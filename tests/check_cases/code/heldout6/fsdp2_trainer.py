# atlas-check: --from 2.13 --to 2.15
"""FSDP2 pre-training loop for the MoE decoder (one process per GPU, torchrun).

    torchrun --nnodes=4 --nproc-per-node=8 -m moe.train --config configs/moe-8x1b.yaml
"""
import functools
import os
import time

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FullyShardedDataParallel, MixedPrecisionPolicy, fully_shard  # expect: name 26-fsdp1-deprecated
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

from moe.config import load_config
from moe.model import MoEDecoder

TORCH_VERSION = tuple(int(p) for p in torch.__version__.split(".")[:2])

_SAVE_OPS = {torch.ops.aten.mm.default, torch.ops.aten._scaled_dot_product_flash_attention.default}


def _policy(ctx, op, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if op in _SAVE_OPS else CheckpointPolicy.PREFER_RECOMPUTE


def sac_block(block: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return checkpoint(block, x, use_reentrant=False, context_fn=lambda: create_selective_checkpoint_contexts(_policy))  # expect: call 215-sac-ordered-effects


def mixed_precision(cfg) -> MixedPrecisionPolicy:
    if TORCH_VERSION >= (2, 15):
        # 2.15 reduces in grad_dtype when reduce_dtype is unset; keep bf16 reductions on purpose
        return MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
    else:
        return MixedPrecisionPolicy(param_dtype=torch.bfloat16)  # expect: call 215-fsdp2-reduce-dtype guarded


def shard(model: MoEDecoder, mesh, cfg) -> MoEDecoder:
    experts_mp = MixedPrecisionPolicy(torch.bfloat16)  # expect: call 215-fsdp2-reduce-dtype
    dense_mp = mixed_precision(cfg)
    for layer in model.layers:
        fully_shard(layer.moe.experts, mesh=mesh, mp_policy=experts_mp)
        fully_shard(layer, mesh=mesh, mp_policy=dense_mp)
    fully_shard(model, mesh=mesh, mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16, output_dtype=torch.float32))  # expect: call 215-fsdp2-reduce-dtype
    return model


def router_z_loss(logits: torch.Tensor) -> torch.Tensor:
    z = torch.logsumexp(logits.float(), dim=-1)
    return (z.clamp(max=30.0) ** 2).mean()  # expect: method 214-clamp-grad


@torch.no_grad()
def update_ema(ema: nn.Module, model: nn.Module, decay: float):
    for e, p in zip(ema.parameters(), model.parameters()):
        e.mul_(decay).add_(p.detach().clamp(-1e3, 1e3), alpha=1 - decay)


def legacy_wrap(model: nn.Module) -> nn.Module:
    # the 2.3-era wrapper, still used by the eval job; its deprecation is outside this window
    return FullyShardedDataParallel(model, use_orig_params=True)


def save(step: int, model, optimizer, root: str):
    model_sd, optim_sd = get_state_dict(model, optimizer)
    dcp.save({"model": model_sd, "optim": optim_sd, "step": step}, checkpoint_id=f"{root}/step{step}")  # expect: call 215-dcp-strides


def resume(model, optimizer, path: str) -> int:
    model_sd, optim_sd = get_state_dict(model, optimizer)
    state = {"model": model_sd, "optim": optim_sd, "step": 0}
    dcp.load(state, checkpoint_id=path)
    set_state_dict(model, optimizer, model_state_dict=state["model"], optim_state_dict=state["optim"])
    return int(state["step"])


def main():
    cfg = load_config(os.environ.get("MOE_CONFIG", "configs/moe-8x1b.yaml"))
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("Nccl", device_id=torch.device("cuda", local_rank))  # expect: call 215-nccl-default
    mesh = init_device_mesh("cuda", (dist.get_world_size(),), mesh_dim_names=("dp",))
    ep_group = dist.new_group(ranks=list(range(dist.get_world_size())), backend="gloo")

    model = shard(MoEDecoder(cfg).to("cuda"), mesh, cfg)
    for layer in model.layers:
        layer.forward = functools.partial(sac_block, layer.__class__.forward.__get__(layer))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=(0.9, 0.95), fused=True)
    step = resume(model, optimizer, cfg.resume) if cfg.resume else 0

    t0 = time.time()
    for batch in cfg.loader(rank=dist.get_rank(), world=dist.get_world_size()):
        logits, router_logits = model(batch["tokens"].cuda())
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), batch["labels"].cuda().flatten())
        loss = loss + cfg.z_loss * router_z_loss(router_logits)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        if step % cfg.save_every == 0:
            save(step, model, optimizer, cfg.ckpt_dir)
        if step % 50 == 0 and dist.get_rank() == 0:
            print(f"step {step} loss {loss.item():.3f} {(time.time() - t0) / 50:.2f}s/it")
            t0 = time.time()
    dist.destroy_process_group(ep_group)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
