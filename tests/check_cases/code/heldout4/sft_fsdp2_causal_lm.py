# atlas-check: --from 2.13 --to 2.15
"""Supervised fine-tuning of a decoder-only LM with FSDP2 and selective checkpointing.

    torchrun --nproc-per-node 8 sft_fsdp2_causal_lm.py --model meta-llama/Llama-3.2-3B \
        --data data/sft.jsonl --out checkpoints/sft --compile

The loss is the fused linear + cross-entropy from torch.nn, so the vocabulary-sized
logits never exist in memory.
"""
import argparse
import os

import torch as th
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts
from transformers import AutoModelForCausalLM, get_cosine_schedule_with_warmup

from sft_data import build_loader

LCE_DEFAULTS = {"ignore_index": -100}
_SAVE_OPS = {th.ops.aten.mm.default, th.ops.aten._scaled_dot_product_efficient_attention.default}


def parse_args():
    p = argparse.ArgumentParser(description="SFT with FSDP2")
    p.add_argument("--model", default="meta-llama/Llama-3.2-3B")
    p.add_argument("--data", required=True)
    p.add_argument("--out", default="checkpoints/sft")
    p.add_argument("--resume", default=None, help="directory written by dcp.save")
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--save-every", type=int, default=500)
    p.add_argument("--compile", action="store_true")
    return p.parse_args()


def _policy(ctx, op, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if op in _SAVE_OPS else CheckpointPolicy.PREFER_RECOMPUTE


def sac_context():
    return create_selective_checkpoint_contexts(_policy)  # expect: call 215-sac-ordered-effects


class CheckpointedBlock(th.nn.Module):
    def __init__(self, block: th.nn.Module):
        super().__init__()
        self.block = block

    def forward(self, *args, **kwargs):
        return checkpoint(self.block, *args, use_reentrant=False, context_fn=sac_context, **kwargs)


def main():
    args = parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    device = th.device("cuda", local_rank)
    dist.init_process_group("nccl", device_id=device)  # expect: call 215-nccl-default

    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=th.float32)
    layers = model.model.layers
    for i in range(len(layers)):
        layers[i] = CheckpointedBlock(layers[i])

    mp = MixedPrecisionPolicy(param_dtype=th.bfloat16)  # expect: call 215-fsdp2-reduce-dtype
    for layer in layers:
        fully_shard(layer, mp_policy=mp)
    fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=th.bfloat16, reduce_dtype=th.float32))

    if args.compile:
        model = th.compile(model, fullgraph=False, shapes_spec={"input_ids": {0: "batch", 1: "seq"}})  # expect: param api-diff:torch.compile

    lce_opts = th.nn.LinearCrossEntropyOptions(**{**LCE_DEFAULTS, "acc_policy": "balanced"})  # expect: keyword 214-acc-policy-balanced
    loss_fn = th.nn.LinearCrossEntropyLoss(options=lce_opts)

    opt = th.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1, fused=True)
    sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=100, num_training_steps=args.steps)

    if args.resume:
        msd, osd = get_state_dict(model, opt)
        state = {"model": msd, "optim": osd}
        dcp.load(state, checkpoint_id=args.resume)
        set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])

    loader = build_loader(args.data, rank=dist.get_rank(), world_size=dist.get_world_size())
    model.train()
    for step, batch in enumerate(loader, start=1):
        input_ids = batch["input_ids"].to(device, non_blocking=True)
        labels = batch["labels"].to(device, non_blocking=True)
        hidden = model.model(input_ids=input_ids).last_hidden_state
        loss = loss_fn(hidden[:, :-1].flatten(0, 1), model.lm_head.weight, labels[:, 1:].flatten())
        loss.backward()
        grad_norm = th.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        if dist.get_rank() == 0 and step % 20 == 0:
            print(f"step {step} loss {loss.item():.4f} grad_norm {grad_norm.full_tensor().item():.3f}")
        if step % args.save_every == 0:
            msd, osd = get_state_dict(model, opt)
            dcp.save({"model": msd, "optim": osd}, checkpoint_id=f"{args.out}/step_{step:06d}")  # expect: call 215-dcp-strides
        if step >= args.steps:
            break

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
