"""``data/gpus.yaml``: GPU models with their architecture, for the environment check.

In:  ``data/gpus.yaml``, read by ``load.py`` and validated with ``GpuTable`` by ``validate.py``
     (``FactBase.gpus``).
Out: ``GpuTable``: NVIDIA models with compute capability and generation, AMD models and PCI
     ids with their gfx target, the oldest driver for each CUDA major version, each citing one
     of the table's ``sources``. ``rules.py`` puts the
     table into the checker's rules, so ``atlas_check.py`` needs no data files.
"""
from __future__ import annotations

import re
from typing import Optional

from pydantic import Field, model_validator

from .schema import Strict

CC = r"^\d+\.\d+$"


class GpuSource(Strict):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    url: str = Field(pattern=r"^https://")
    title: str


class NvidiaArch(Strict):
    name: str
    compute_capability: str = Field(pattern=CC)
    source: str


class NvidiaGpu(Strict):
    model: str
    match: Optional[str] = None      # words to look for; default: the model name
    arch: str
    compute_capability: str = Field(pattern=CC)
    source: str


class AmdGpu(Strict):
    model: str
    match: Optional[str] = None
    gfx: str = Field(pattern=r"^gfx[0-9a-f]+$")
    source: str


class AmdPciIds(Strict):
    ids: list[str] = Field(min_length=1)
    chip: str
    gfx: str = Field(pattern=r"^gfx[0-9a-f]+$")
    source: str


class CudaDriver(Strict):
    """The oldest NVIDIA driver branch that runs a CUDA runtime of one major version under
    NVIDIA's minor version compatibility: the rule for the pip wheels, which bundle their own
    CUDA runtime (JIT compilation of PTX needs the newer driver of the toolkit itself)."""
    cuda: str = Field(pattern=r"^\d+$")
    min_driver: str = Field(pattern=r"^\d+$")
    rule: str = "minor-version-compatibility"
    source: str
    locator: str = Field(min_length=3)


def words(name: str) -> list[str]:
    """The words of a GPU name as the checker compares them: upper case, split at spaces,
    hyphens, slashes and brackets, without the vendor words (NVIDIA, AMD)."""
    return [w for w in re.split(r"[\s\-_/(),]+", name.upper()) if w and w not in ("NVIDIA", "AMD")]


class GpuTable(Strict):
    sources: list[GpuSource] = Field(min_length=1)
    nvidia_architectures: list[NvidiaArch] = Field(min_length=1)
    nvidia: list[NvidiaGpu] = []
    amd: list[AmdGpu] = []
    amd_pci_ids: list[AmdPciIds] = []
    cuda_drivers: list[CudaDriver] = []

    @model_validator(mode="after")
    def _consistent(self) -> GpuTable:
        known = {s.id for s in self.sources}
        arches = {a.name: a for a in self.nvidia_architectures}
        problems = []
        for row in [*self.nvidia_architectures, *self.nvidia, *self.amd, *self.amd_pci_ids, *self.cuda_drivers]:
            if row.source not in known:
                label = getattr(row, "model", None) or getattr(row, "name", None) or getattr(row, "chip", None) or f"CUDA {row.cuda}"
                problems.append(f"{label}: unknown source {row.source!r}")
        ccs = [tuple(map(int, a.compute_capability.split("."))) for a in self.nvidia_architectures]
        if ccs != sorted(ccs):
            problems.append("nvidia_architectures: not in order of compute capability")
        for g in self.nvidia:
            a = arches.get(g.arch)
            if a is None:
                problems.append(f"{g.model}: unknown architecture {g.arch!r}")
                continue
            cc = tuple(map(int, g.compute_capability.split(".")))
            nxt = [x for x in ccs if x > tuple(map(int, a.compute_capability.split(".")))]
            if cc < tuple(map(int, a.compute_capability.split("."))) or (nxt and cc >= nxt[0]):
                problems.append(f"{g.model}: compute capability {g.compute_capability} is not in {g.arch}")
        seen: dict[tuple, str] = {}
        for g in [*self.nvidia, *self.amd]:
            key = tuple(words(g.match or g.model))
            if not key:
                problems.append(f"{g.model}: no words to match")
            elif key in seen:
                problems.append(f"{g.model}: matches the same words as {seen[key]}")
            seen[key] = g.model
        ids = [i for row in self.amd_pci_ids for i in row.ids]
        if len(ids) != len(set(ids)) or any(not re.fullmatch(r"[0-9a-f]{4}", i) for i in ids):
            problems.append("amd_pci_ids: ids must be unique four-digit lower-case hex")
        if problems:
            raise ValueError("; ".join(problems))
        return self
