# atlas-check: --from 2.5 --to 2.7
"""Fine-tune a decoder on the instruction mix with FSDP (launched with torchrun).

Runs on the 2.5 images today; fully_shard is picked up automatically where it exists.
"""
import argparse
import functools
import math
import os

import torch
import torch.distributed as dist
import torch.distributed.fsdp
import torch.nn.functional as F
from torch.distributed._tensor import DTensor  # expect: name 25-dtensor-public
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision, ShardingStrategy  # expect: name 26-fsdp1-deprecated
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from torch.optim.lr_scheduler import ReduceLROnPlateau

from mylab.data import build_loader
from mylab.model import Decoder, DecoderLayer

_HAS_FULLY_SHARD = hasattr(torch.distributed.fsdp, "fully_shard")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--resume", default="")
    p.add_argument("--init-from", default="checkpoints/base.pt")
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--log-lr", action="store_true")
    return p.parse_args()


def wrap(model):
    if _HAS_FULLY_SHARD:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16)
        for layer in model.layers:
            fully_shard(layer, mp_policy=mp)
        fully_shard(model, mp_policy=mp)
        return model
    else:
        policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={DecoderLayer})
        return FSDP(  # reported at its import (one finding per cause)
            model,
            auto_wrap_policy=policy,
            sharding_strategy=ShardingStrategy.FULL_SHARD,
            mixed_precision=MixedPrecision(param_dtype=torch.bfloat16),
            device_id=torch.cuda.current_device(),
        )


def unwrap_state(model):
    if isinstance(model, FSDP):  # reported at its import (one finding per cause)
        return {k: v for k, v in model.state_dict().items()}
    return {k: (v.full_tensor() if isinstance(v, DTensor) else v) for k, v in model.state_dict().items()}


def train_step(model, batch, optimizer):
    logits = model(batch["input_ids"].cuda())
    labels = logits.new_tensor(batch["labels"], dtype=torch.long)  # expect: method 27-new-tensor-device
    weights = logits.new_ones(labels.shape, dtype=torch.float32)
    loss = (F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="none") * weights.flatten()).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def main():
    args = parse_args()
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

    model = Decoder.from_config("configs/decoder-1b.yaml")
    base = torch.load(args.init_from, map_location="cpu")  # no finding since issue 42: a state dict goes into load_state_dict
    model.load_state_dict(base)
    model = wrap(model.cuda())

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    sched = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1, verbose=True)  # expect: param 27-lrscheduler-verbose-removed
    start_epoch = 0
    if args.resume:
        state = torch.load(args.resume, map_location="cpu", weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    extra = torch.load("checkpoints/extra_tokens.pt")  # atlas: ignore[26-load-weights-only-default]

    loader = build_loader("data/instruct", batch_size=8, extra_tokens=extra)
    for epoch in range(start_epoch, args.epochs):
        total = 0.0
        for batch in loader:
            total += train_step(model, batch, optimizer).item()
        val = total / max(len(loader), 1)
        sched.step(val)
        if args.log_lr:
            sched.print_lr(True, 0, optimizer.param_groups[0]["lr"], epoch)  # expect: method 27-lrscheduler-verbose-removed
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: loss {val:.4f} ppl {math.exp(val):.2f} lr {sched.get_last_lr()}")
            torch.save({"model": unwrap_state(model), "optimizer": optimizer.state_dict(), "epoch": epoch},
                       f"checkpoints/epoch{epoch}.pt")

    # the old amp path is still here for the A10 queue; its rule is outside this window
    with torch.cuda.amp.autocast(dtype=torch.bfloat16):  # expect: name 24-amp-device-specific
        model(torch.zeros(1, 8, dtype=torch.long, device="cuda"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
