# atlas-check: --from 2.13 --to 2.15
"""Small FastAPI inference server for the ranking model.

At start-up it picks a device (CUDA first, then Apple silicon when
torch.backends.mps.is_available() says so, then CPU), optionally swaps linear layers
for oneDNN ones on CPU hosts, and compiles the model when SERVE_COMPILE=1.
"""
import importlib
import logging
import os
import time

import torch
import torch.nn as nn
import torch.utils.mkldnn as mkldnn_utils
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel
from torch.backends import mps as mps_backend

import handlers

log = logging.getLogger("ranking")
app = FastAPI(title="ranking")
STATE: dict = {}


class RankRequest(BaseModel):
    query_id: str
    features: list[list[float]]


def pick_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda", int(os.environ.get("SERVE_GPU", "0")))
    if torch.backends.mps.is_available():  # expect: name 215-mps-macos15
        return torch.accelerator.current_accelerator()
    return torch.device("cpu")


def to_onednn(model: nn.Module) -> nn.Module:
    """Replace nn.Linear children with oneDNN-backed linears (CPU hosts only)."""
    for name, child in model.named_children():
        if isinstance(child, nn.Linear):
            setattr(model, name, mkldnn_utils.MkldnnLinear(child, torch.float32))
        else:
            to_onednn(child)
    return model


def load_model(device: torch.device) -> nn.Module:
    model = torch.jit.load(os.environ.get("MODEL_PATH", "model.ts"), map_location="cpu").eval()  # expect: call 210-torchscript-deprecated
    if device.type == "cpu" and os.environ.get("SERVE_ONEDNN") == "1":
        model = to_onednn(model)
    model = model.to(device)
    if os.environ.get("SERVE_COMPILE") == "1":
        model = torch.compile(model, mode="reduce-overhead", shapes_spec={"x": {0: "batch"}})  # expect: param api-diff:torch.compile
    return model


@app.on_event("startup")
def startup() -> None:
    device = pick_device()
    STATE.update(device=device, model=load_model(device), t0=time.time())
    log.info("serving on %s", device)


@app.get("/healthz")
def healthz():
    apple_gpu = mps_backend.is_available()  # expect: name 215-mps-macos15
    return {"device": str(STATE.get("device")), "apple_gpu": apple_gpu, "uptime_s": round(time.time() - STATE.get("t0", time.time()), 1)}


@app.post("/rank")
def rank(req: RankRequest):
    if "model" not in STATE:
        raise HTTPException(status_code=503, detail="model not loaded")
    x = torch.tensor(req.features, dtype=torch.float32, device=STATE["device"])
    with torch.inference_mode():
        scores = torch.sigmoid(STATE["model"](x)).squeeze(-1)
    order = torch.argsort(scores, descending=True).tolist()
    return handlers.format_ranking(req.query_id, order, scores.tolist())


@app.post("/admin/reload")
def admin_reload(full: bool = False):
    """Reload the response handlers; with full=true also re-import torch (new build on disk)."""
    importlib.reload(handlers)
    if full:
        importlib.reload(torch)  # expect: reload 215-import-once
        STATE.update(model=load_model(STATE["device"]))
    return {"reloaded": True, "full": full}
