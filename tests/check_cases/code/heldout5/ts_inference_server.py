# atlas-check: --from 2.8 --to 2.11
"""Small HTTP inference server. TorchScript files are served as they are; eager
checkpoints are rebuilt, then scripted once at load time so the hot path has no Python
dispatch. POST /predict/<model> with {"inputs": [[...], ...]}; POST /export/<model>
returns an ONNX file for the edge team.
"""
import io
import json
import logging
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch
import torch.nn as nn
import torch.nn.functional as F

log = logging.getLogger("serve")
MODEL_DIR = os.environ.get("MODEL_DIR", "/models")
USE_GPU = torch.cuda.is_available()


@torch.jit.script  # expect: call 210-torchscript-deprecated
def postprocess(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    return F.softmax(logits / temperature, dim=-1)


def build(arch: dict) -> nn.Module:
    layers = []
    for d_in, d_out in zip(arch["dims"][:-1], arch["dims"][1:]):
        layers += [nn.Linear(d_in, d_out), nn.GELU()]
    return nn.Sequential(*layers[:-1])


class ModelRegistry:
    def __init__(self, root: str):
        self.root = root
        self._models = {}
        self._lock = threading.Lock()

    def load(self, name: str):
        path = os.path.join(self.root, name)
        if path.endswith(".ts"):
            model = torch.jit.load(path, map_location="cpu")
        else:
            state = torch.load(path, map_location="cpu")
            model = build(state["arch"])
            model.load_state_dict(state["weights"])
            model = torch.jit.script(model)  # expect: call 210-torchscript-deprecated
        model.eval()
        with self._lock:
            self._models[name] = model
        return model

    def get(self, name: str):
        with self._lock:
            model = self._models.get(name)
        return model if model is not None else self.load(name)


REGISTRY = ModelRegistry(MODEL_DIR)


class Handler(BaseHTTPRequestHandler):
    def _reply(self, code: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        kind, _, name = self.path.strip("/").partition("/")
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        model = REGISTRY.get(name)
        x = torch.tensor(payload["inputs"], dtype=torch.float32)
        if kind == "export":
            buf = io.BytesIO()
            torch.onnx.export(model, (x,), buf, opset_version=17)  # expect: call 29-onnx-dynamo-default
            self._reply(200, buf.getvalue(), "application/octet-stream")
            return
        with torch.inference_mode():
            if USE_GPU:
                with torch.cuda.amp.autocast(dtype=torch.float16):  # expect: name 24-amp-device-specific
                    logits = model.cuda()(x.cuda()).float().cpu()
            else:
                logits = model(x)
            probs = postprocess(logits, float(payload.get("temperature", 1.0)))
        self._reply(200, json.dumps({"probs": probs.tolist()}).encode())


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    log.info("serving %s (torch.jit.script models are compiled on first request)", MODEL_DIR)
    ThreadingHTTPServer(("0.0.0.0", int(os.environ.get("PORT", "8080"))), Handler).serve_forever()
