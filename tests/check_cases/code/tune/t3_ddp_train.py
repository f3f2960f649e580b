# atlas-check: --from 2.14 --to 2.15
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def setup():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl")  # expect: call 215-nccl-default; call 215-nccl-device-binding
    return local_rank


def make_groups(world):
    evens = dist.new_group(ranks=list(range(0, world, 2)))  # expect: call 215-nccl-eager-communicators
    odds = dist.new_group(ranks=list(range(1, world, 2)))  # expect: call 215-nccl-eager-communicators
    return evens, odds


def cpu_group():
    return dist.new_group(backend="gloo")


def main():
    if os.environ.get("USE_OLD_NCCL") == "1":
        os.environ["TORCH_DIST_USE_NCCL2"] = "0"  # expect: env 215-nccl-default
    rank = setup()
    model = torch.nn.Linear(1024, 1024).cuda()
    ddp = DDP(model, device_ids=[rank])
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
    for step in range(10):
        loss = ddp(torch.randn(32, 1024, device="cuda")).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
