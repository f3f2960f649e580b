# atlas-check: --from 2.13 --to 2.15
# expect-skip
import torch
import torch.distributed as dist


def setup(local_rank):
<<<<<<< HEAD
    dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
=======
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
>>>>>>> feature/device-binding
    return dist.get_rank()


def clip_logits(x):
    return x.clamp(-30.0, 30.0)
