# atlas-check: --from 2.13 --to 2.14
from contextlib import contextmanager

import torch
from torch.profiler import profile as tprof, ProfilerActivity, schedule
import torch.autograd.profiler_legacy as profiler_legacy


@contextmanager
def maybe_profile(enabled, use_cuda=False):
    if not enabled:
        yield None
        return
    with tprof(activities=[ProfilerActivity.CPU], use_cuda=use_cuda) as p:  # expect: param 214-profiler-use-cuda
        yield p


def old_api(model, x, args):
    with torch.autograd.profiler.profile(enabled=True, use_cuda=args.cuda, profile_memory=True) as prof:  # expect: param 214-profiler-use-cuda
        model(x)
    return prof


def legacy(model, x):
    with profiler_legacy.profile(use_cuda=True) as prof:
        model(x)
    return prof


def scheduled(model, loader):
    sched = schedule(wait=1, warmup=1, active=3)
    opts = dict(use_cuda=True, record_shapes=True)  # expect: param 214-profiler-use-cuda
    with tprof(schedule=sched, **opts) as p:
        for i, (x, _) in enumerate(loader):
            model(x)
            p.step()


def run(config):
    use_cuda = config.get("use_cuda", torch.cuda.is_available())
    with maybe_profile(config["profile"], use_cuda=use_cuda):
        pass
