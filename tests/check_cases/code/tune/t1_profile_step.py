# atlas-check: --from 2.13 --to 2.15
"""Profile one training step and dump a Chrome trace (team utility, 2024)."""
import argparse
import time

import torch
import torch.nn as nn
from torch.autograd import profiler
from torch.autograd import profiler_legacy
from torch.profiler import ProfilerActivity, profile, record_function


def build_model(use_cuda=True):
    model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    return model.cuda() if use_cuda and torch.cuda.is_available() else model


def legacy_profile(model, batch, use_cuda):
    # the old way: profiler.profile(use_cuda=True) -- still in some notebooks
    with profiler.profile(use_cuda=use_cuda, record_shapes=True) as prof:  # expect: param 214-profiler-use-cuda
        model(batch)
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))


def legacy_module_profile(model, batch):
    with profiler_legacy.profile(use_cuda=True) as prof:
        model(batch)
    return prof


def modern_profile(model, batch):
    acts = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        acts.append(ProfilerActivity.CUDA)
    with profile(activities=acts, record_shapes=True) as prof:
        with record_function("step"):
            model(batch)
    prof.export_chrome_trace("trace.json")


def quick(model, batch):
    with torch.profiler.profile(use_cuda=True):  # expect: param 214-profiler-use-cuda
        model(batch)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--use_cuda", action="store_true")
    args = p.parse_args()
    use_cuda = args.use_cuda
    m = build_model(use_cuda=use_cuda)
    x = torch.randn(64, 512, device="cuda" if use_cuda else "cpu")
    t0 = time.time()
    legacy_profile(m, x, use_cuda)
    modern_profile(m, x)
    print("took", time.time() - t0)
