# atlas-check: --from 2.0 --to 2.9
"""Lightning module for semantic segmentation, with a fused bias+GELU kernel written as a
custom autograd Function (mixed-precision aware). Trained on torch 2.0 images today."""
import argparse

import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F


class FusedBiasGelu(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)  # expect: name 24-amp-device-specific
    def forward(ctx, x, bias):
        ctx.save_for_backward(x, bias)
        return F.gelu(x + bias)

    @staticmethod
    @torch.cuda.amp.custom_bwd  # expect: name 24-amp-device-specific
    def backward(ctx, grad):
        x, bias = ctx.saved_tensors
        y = (x + bias).detach().requires_grad_()
        with torch.enable_grad():
            out = F.gelu(y)
        (g,) = torch.autograd.grad(out, y, grad)
        return g, g.sum(dim=tuple(range(g.dim() - 1)))


class Block(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bias = nn.Parameter(torch.zeros(c))

    def forward(self, x):
        y = self.conv(x).permute(0, 2, 3, 1)
        return FusedBiasGelu.apply(y, self.bias).permute(0, 3, 1, 2) + x


class SegModel(pl.LightningModule):
    def __init__(self, num_classes: int = 21, width: int = 64, lr: float = 3e-4, backbone_ckpt=None):
        super().__init__()
        self.save_hyperparameters()
        self.stem = nn.Conv2d(3, width, 3, padding=1)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(4)])
        self.head = nn.Conv2d(width, num_classes, 1)
        if backbone_ckpt:
            state = torch.load(backbone_ckpt, map_location="cpu")  # no finding since issue 42: a state dict goes into load_state_dict
            self.blocks.load_state_dict(state, strict=False)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y, ignore_index=255)
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        # Validation also runs on the CPU pool; bf16 there keeps it in budget.
        with torch.cpu.amp.autocast(enabled=self.device.type == "cpu", dtype=torch.bfloat16):  # expect: name 24-amp-device-specific
            logits = self(x)
        self.log("val/loss", F.cross_entropy(logits.float(), y, ignore_index=255), sync_dist=True)

    def predict_step(self, batch, batch_idx, dataloader_idx=0):
        with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16):
            return self(batch).argmax(dim=1)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=self.hparams.lr, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    def on_load_checkpoint(self, checkpoint):
        # Drop the class-weight buffer older runs stored.
        checkpoint["state_dict"].pop("loss_weight", None)

    def export_onnx(self, path: str, height: int = 512, width: int = 512):
        self.eval()
        example = torch.randn(1, 3, height, width)
        torch.onnx.export(self, example, path, opset_version=13, input_names=["image"], output_names=["mask"])  # expect: call 29-onnx-dynamo-default


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", required=True)
    p.add_argument("--out", default="seg")
    args = p.parse_args()
    model = SegModel.load_from_checkpoint(args.ckpt, map_location="cpu")
    model.export_onnx(args.out + ".onnx")
    # The mobile app still loads TorchScript.
    torch.jit.save(torch.jit.script(model), args.out + "_ts.pt")
