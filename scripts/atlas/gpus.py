"""``data/gpus.yaml``: GPU models with their architecture, for the environment check.

In:  ``data/gpus.yaml``, read by ``load.py`` and validated with ``GpuTable`` by ``validate.py``
     (``FactBase.gpus``).
Out: ``GpuTable``: NVIDIA models with compute capability and generation, series (a word and a
     model-number pattern, for models not listed one by one), AMD models and PCI
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


class NvidiaSeries(Strict):
    """A series the table does not list model by model: ``match`` (one word of the name) followed
    by a model number ``number`` matches whole. Every compute capability of the series is listed;
    a verdict from it is inferred."""
    series: str
    match: str = Field(pattern=r"^[A-Za-z]+$")
    number: str = Field(pattern=r"^[A-Z0-9\[\]{},*-]+$")   # a pattern of classes and counts only: no backtracking
    arch: str
    compute_capabilities: list[str] = Field(min_length=1)
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
    #: the exact floor per OS where the table gives one (11.x: 450.80.02 / 452.39); else ``min_driver``
    linux: Optional[str] = Field(default=None, pattern=r"^\d+(\.\d+)*$")
    windows: Optional[str] = Field(default=None, pattern=r"^\d+(\.\d+)*$")
    rule: str = "minor-version-compatibility"
    source: str
    locator: str = Field(min_length=3)


class CudaToolkit(Strict):
    """The oldest GPU a CUDA toolkit major version still compiles code for: a build made with it
    holds no GPU code below that compute capability, even where no arch list of the build is known."""
    cuda: str = Field(pattern=r"^\d+$")
    min_cc: str = Field(pattern=r"^\d+\.\d+$")
    source: str
    locator: str = Field(min_length=3)


def words(name: str) -> list[str]:
    """The words of a GPU name as the checker compares them: upper case, split at spaces,
    hyphens, slashes and brackets, without the vendor words (NVIDIA, AMD)."""
    return [w for w in re.split(r"[\s\-_/(),]+", name.upper()) if w and w not in ("NVIDIA", "AMD")]


def arch_ccs(table: GpuTable) -> dict[str, list[str]]:
    """Each NVIDIA architecture's compute capabilities, as far as the table knows them: its first
    one, its listed models' and its series'. Sorted."""
    out: dict[str, set[str]] = {a.name: {a.compute_capability} for a in table.nvidia_architectures}
    for g in table.nvidia:
        out[g.arch].add(g.compute_capability)
    for s in table.nvidia_series:
        out[s.arch].update(s.compute_capabilities)
    return {k: sorted(v, key=lambda c: tuple(map(int, c.split(".")))) for k, v in out.items()}


class GpuTable(Strict):
    sources: list[GpuSource] = Field(min_length=1)
    nvidia_architectures: list[NvidiaArch] = Field(min_length=1)
    nvidia: list[NvidiaGpu] = []
    nvidia_series: list[NvidiaSeries] = []
    amd: list[AmdGpu] = []
    amd_pci_ids: list[AmdPciIds] = []
    cuda_drivers: list[CudaDriver] = []
    cuda_toolkits: list[CudaToolkit] = []

    @model_validator(mode="after")
    def _consistent(self) -> GpuTable:
        known = {s.id for s in self.sources}
        arches = {a.name: a for a in self.nvidia_architectures}
        problems = []
        for row in [*self.nvidia_architectures, *self.nvidia, *self.nvidia_series, *self.amd, *self.amd_pci_ids, *self.cuda_drivers,
                    *self.cuda_toolkits]:
            if row.source not in known:
                label = (getattr(row, "model", None) or getattr(row, "name", None) or getattr(row, "chip", None)
                         or getattr(row, "series", None) or f"CUDA {row.cuda}")
                problems.append(f"{label}: unknown source {row.source!r}")
        ccs = [tuple(map(int, a.compute_capability.split("."))) for a in self.nvidia_architectures]
        if ccs != sorted(ccs):
            problems.append("nvidia_architectures: not in order of compute capability")
        def cc_of(c):
            return tuple(map(int, c.split("."))) if re.fullmatch(CC[1:-1], c) else None

        def in_arch(label, arch, capabilities):
            a = arches.get(arch)
            if a is None:
                problems.append(f"{label}: unknown architecture {arch!r}")
                return
            lo = cc_of(a.compute_capability)
            nxt = [x for x in ccs if x > lo]
            for c in capabilities:
                cc = cc_of(c)
                if cc is None or cc < lo or (nxt and cc >= nxt[0]):
                    problems.append(f"{label}: compute capability {c} is not in {arch}")

        for g in self.nvidia:
            in_arch(g.model, g.arch, [g.compute_capability])
        for s in self.nvidia_series:
            in_arch(s.series, s.arch, s.compute_capabilities)
            try:
                re.compile(s.number)
            except re.error as exc:
                problems.append(f"{s.series}: number is not a pattern ({exc})")
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
