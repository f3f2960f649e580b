# atlas-check: --from 2.13 --to 2.15
"""DDIM / DDPM sampling for a pretrained UNet.

Note for maintainers: do not switch the noise schedule to torch.cholesky-based
whitening again, it was removed upstream (see "torch.cholesky" in the release notes).
"""
import argparse
import math

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from .unet import UNet2DModel


def pick_device(prefer: str = "auto") -> torch.device:
    if prefer != "auto":
        return torch.device(prefer)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def cosine_betas(timesteps: int, s: float = 0.008) -> torch.Tensor:
    steps = torch.arange(timesteps + 1, dtype=torch.float64) / timesteps
    alphas_cumprod = torch.cos((steps + s) / (1 + s) * math.pi / 2) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0.0, 0.999)  # expect: call 214-clamp-grad


class DDIMSampler:
    def __init__(self, model: UNet2DModel, timesteps: int = 1000, eta: float = 0.0):
        self.model = model
        self.eta = eta
        betas = cosine_betas(timesteps)
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0).float()
        self.timesteps = timesteps

    @torch.no_grad()
    def sample(self, shape, steps: int = 50, generator=None, device="cuda"):
        x = torch.randn(shape, generator=generator, device=device)
        ts = torch.linspace(self.timesteps - 1, 0, steps, device=device).long()
        acp = self.alphas_cumprod.to(device)
        for i, t in enumerate(ts):
            a_t = acp[t]
            a_prev = acp[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0, device=device)
            eps = self.model(x, t.expand(shape[0])).sample
            x0_pred = (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()
            x0_pred = x0_pred.clamp(-1.0, 1.0)
            sigma = self.eta * ((1 - a_prev) / (1 - a_t) * (1 - a_t / a_prev)).sqrt()
            dir_xt = (1 - a_prev - sigma ** 2).sqrt() * eps
            noise = sigma * torch.randn(x.shape, generator=generator, device=device)
            x = a_prev.sqrt() * x0_pred + dir_xt + noise
        return x


def to_pil(batch: torch.Tensor):
    arr = ((batch + 1) * 127.5).permute(0, 2, 3, 1).cpu().numpy()
    arr = arr.clip(0, 255).astype(np.uint8)
    return [Image.fromarray(a) for a in arr]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", required=True)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--eta", type=float, default=0.0)
    p.add_argument("--device", default="auto")
    p.add_argument("--compile", action="store_true")
    p.add_argument("--n", type=int, default=8)
    args = p.parse_args()

    device = pick_device(args.device)
    model = UNet2DModel.from_pretrained(args.ckpt).to(device).eval()
    if args.compile:
        model = torch.compile(model, mode="max-autotune")
    sampler = DDIMSampler(model, eta=args.eta)
    g = torch.Generator(device=device).manual_seed(0)
    imgs = sampler.sample((args.n, 3, 64, 64), steps=args.steps, generator=g, device=device)
    imgs = F.interpolate(imgs, scale_factor=2, mode="bilinear")
    for i, im in enumerate(to_pil(imgs)):
        im.save(f"sample_{i:03d}.png")


if __name__ == "__main__":
    main()
