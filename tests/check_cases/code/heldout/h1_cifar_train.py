# atlas-check: --from 2.13 --to 2.15
#!/usr/bin/env python
# -*- coding: utf-8 -*-
"""CIFAR-10 ResNet training — 实验脚本 (lab server)."""
import os, sys, time
import torch as T
import torch.nn as nn
import torch.nn.functional as F
from torch import linalg
from torch.utils.data import DataLoader
import torchvision
import torchvision.transforms as transforms


class LabelSmoothing(nn.Module):
    def __init__(self, eps=0.1):
        super().__init__()
        self.eps = eps

    def forward(self, logits, target):
        logp = F.log_softmax(logits, dim=-1)
        nll = -logp.gather(1, target[:, None]).squeeze(1)
        p = logp.exp().clamp_(1e-7, 1.0)  # expect: method 214-clamp-grad
        return ((1 - self.eps) * nll - self.eps * logp.mean(-1)).mean() + 0 * p.sum()


def spectral_reg(w):
    q, r = linalg.qr(w.flatten(1))
    return r.diagonal().abs().log().sum()


def orth_init(m):
    if isinstance(m, nn.Linear):
        q, _ = T.qr(T.randn_like(m.weight))  # expect: name 214-remove-qr
        m.weight.data.copy_(q)


def clip_grads(model, max_norm):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.data = T.clip(p.grad.data, -max_norm, max_norm)  # expect: call 214-clamp-grad


def main():
    dev = "cuda" if T.cuda.is_available() else "cpu"
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,) * 3, (0.5,) * 3)])
    ds = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=tf)
    dl = DataLoader(ds, batch_size=128, shuffle=True, num_workers=4)
    model = torchvision.models.resnet18(num_classes=10).to(dev)
    model.apply(orth_init)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    crit = LabelSmoothing()
    for epoch in range(2):
        t0 = time.time()
        for x, y in dl:
            x, y = x.to(dev), y.to(dev)
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            clip_grads(model, 1.0)
            opt.step()
        print("epoch %d: %.1fs 损失=%.3f" % (epoch, time.time() - t0, loss.item()), T.clamp(loss, 0, 10))  # expect: call 214-clamp-grad


if __name__ == "__main__":
    main()
