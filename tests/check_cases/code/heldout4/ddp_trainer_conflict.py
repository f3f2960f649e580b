# atlas-check: --from 2.14 --to 2.15
# expect-skip
"""DDP trainer for the detection model (committed mid-rebase; see the conflict below)."""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from detection import build_detector, build_loader


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--amp", action="store_true")
    return p.parse_args()


def setup():
    local_rank = int(os.environ["LOCAL_RANK"])
<<<<<<< HEAD
    os.environ["TORCH_DIST_USE_NCCL2"] = "1"
    dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
=======
    device = torch.device("cuda", local_rank)
    dist.init_process_group("nccl", device_id=device)
>>>>>>> origin/nccl-device-id
    return local_rank


def main():
    args = parse_args()
    local_rank = setup()
    model = build_detector().cuda(local_rank)
    model = DDP(model, device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    loader = build_loader(rank=dist.get_rank(), world_size=dist.get_world_size())
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for images, targets in loader:
            with torch.autocast("cuda", dtype=torch.float16, enabled=args.amp):
                losses = model(images.cuda(local_rank), targets)
                loss = sum(losses.values())
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), f"checkpoints/epoch_{epoch:02d}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
