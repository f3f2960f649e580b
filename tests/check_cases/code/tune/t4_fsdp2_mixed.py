# atlas-check: --from 2.14 --to 2.15
import torch
import torch.distributed as dist
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def shard(model, reduce_in_bf16=False):
    if reduce_in_bf16:
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)
    else:
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16)  # expect: call 215-fsdp2-reduce-dtype
    for block in model.layers:
        fully_shard(block, mp_policy=mp)
    fully_shard(model, mp_policy=MixedPrecisionPolicy(torch.bfloat16))  # expect: call 215-fsdp2-reduce-dtype
    return model


def full_precision(model):
    fully_shard(model, mp_policy=MixedPrecisionPolicy())
    return model


def main():
    dist.init_process_group("nccl", device_id=torch.device("cuda", 0))  # expect: call 215-nccl-default
    model = torch.nn.Transformer(d_model=256, nhead=8)
    shard(model)
