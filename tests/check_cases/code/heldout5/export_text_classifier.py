# atlas-check: --from 2.5 --to 2.12
"""Export a trained text classifier for the serving team: ONNX, TorchScript, and an
ExportedProgram. Run: python export_text_classifier.py --ckpt runs/best.pt --out exported/

Note for reviewers: torch.onnx.export(model, args, f) without dynamo= changes meaning in 2.9.
"""
import argparse
import os

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn


class TextClassifier(nn.Module):
    def __init__(self, vocab_size: int, num_labels: int, dim: int = 256):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=4 * dim, batch_first=True),
            num_layers=2,
        )
        self.head = nn.Linear(dim, num_labels)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        h = self.encoder(self.embed(input_ids))
        return self.head(h.mean(dim=1))


def load_model(ckpt_path: str, vocab_size: int, num_labels: int) -> TextClassifier:
    model = TextClassifier(vocab_size, num_labels)
    state = torch.load(ckpt_path, map_location="cpu")  # no finding since issue 42: a state dict goes into load_state_dict
    model.load_state_dict(state["model"])
    return model.eval()


def export_onnx_legacy(model: nn.Module, example: torch.Tensor, path: str) -> None:
    torch.onnx.export(  # expect: call 29-onnx-dynamo-default
        model,
        (example,),
        path,
        input_names=["input_ids"],
        output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch"}},
        opset_version=17,
        do_constant_folding=True,
    )


def export_onnx_pinned(model: nn.Module, example: torch.Tensor, path: str) -> None:
    # The TorchScript-based exporter, on purpose, until the new graph is validated.
    torch.onnx.export(model, (example,), path, opset_version=17, dynamo=False)


def export_onnx_dynamo(model: nn.Module, example: torch.Tensor, path: str) -> None:
    batch = torch.export.Dim("batch", min=1, max=256)
    program = torch.onnx.export(
        model, (example,), dynamic_shapes=({0: batch},), dynamo=True
    )
    program.save(path)


def export_torchscript(model: nn.Module, example: torch.Tensor, path: str) -> None:
    traced = torch.jit.trace(model, example, check_trace=False)  # expect: call 210-torchscript-deprecated
    traced = torch.jit.freeze(traced)
    torch.jit.save(traced, path)


def export_program(model: nn.Module, example: torch.Tensor, path: str) -> None:
    ep = torch.export.export(model, (example,))  # expect: call 28-export-strict-false
    torch.export.save(ep, path)


def verify(onnx_path: str, model: nn.Module, example: torch.Tensor) -> None:
    onnx.checker.check_model(onnx.load(onnx_path))
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {"input_ids": example.numpy()})
    with torch.no_grad():
        want = model(example).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--vocab-size", type=int, default=32000)
    p.add_argument("--num-labels", type=int, default=5)
    p.add_argument("--exporter", choices=["legacy", "pinned", "dynamo"], default="legacy")
    args = p.parse_args()

    os.makedirs(args.out, exist_ok=True)
    model = load_model(args.ckpt, args.vocab_size, args.num_labels)
    example = torch.randint(1, args.vocab_size, (2, 64))
    onnx_path = os.path.join(args.out, "model.onnx")
    {"legacy": export_onnx_legacy, "pinned": export_onnx_pinned,
     "dynamo": export_onnx_dynamo}[args.exporter](model, example, onnx_path)
    verify(onnx_path, model, example)
    export_torchscript(model, example, os.path.join(args.out, "model_ts.pt"))
    export_program(model, example, os.path.join(args.out, "model.pt2"))


if __name__ == "__main__":
    main()
