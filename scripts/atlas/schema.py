"""Schema of the fact base (step 2 of load -> validate -> enrich -> render).

In:  nothing; imported by ``validate.py``.
Out: pydantic models describing one release file (``data/releases/<v>.yaml``),
     ``data/sources.yaml`` and one translation file. Every model forbids unknown
     keys, so a typo in a key is an error, not a silently ignored field.

Values (numbers, versions, dates, identifiers, error messages, code) are
language-neutral and live here once. Text fields hold English only; the other
languages live in ``data/translations/<lang>/`` and refer to values through
``{placeholders}``.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .langs import LANGS

VERSION = r"^\d+\.\d+$"
FULL_VERSION = r"^\d+\.\d+\.\d+$"
FACT_ID = r"^\d{2,4}-[a-z0-9]+(-[a-z0-9]+)*$"
#: a source's ``file``: names of letters, digits, ``_``, ``-`` and inner dots, joined by ``/``
SOURCE_FILE = re.compile(r"^(?!.*(?:^|/)\.)[\w-][\w.-]*(?:/[\w-][\w.-]*)*$", re.ASCII)

ChangeType = Literal[
    "breaking", "removal", "behavior", "deprecation", "feature", "performance", "platform"
]
Area = Literal[
    "distributed", "fsdp", "pipeline", "checkpoint", "compile", "mps", "cuda", "rocm",
    "xpu", "packaging", "frontend", "linalg", "profiler", "autograd", "nn", "cpp", "audio",
]
#: Types that break an upgrade by definition; others may opt in with ``breaking: true``.
BREAKING_TYPES = {"breaking", "removal"}

Value = Union[bool, int, float, dt.date, str, list[Union[int, float, str]]]


class _TextMark:
    """Marks a field as text for readers: written in English here, translated in
    ``data/translations/<lang>/``, rendered with its ``{placeholders}``. ``keys.py`` finds the
    text fields through ``text_fields``; nothing lists them again."""

    def __repr__(self) -> str:
        return "TEXT"


TEXT = _TextMark()
Text = Annotated[str, TEXT]


def text_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` marked ``TEXT``, in declaration order."""
    return tuple(name for name, f in model.model_fields.items() if TEXT in f.metadata)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: The longest locator: a short verbatim quote, not a copied sentence.
LOCATOR_MAX = 40


class Cite(Strict):
    """One source supporting a fact, with a short verbatim locator."""

    source: str
    locator: str = Field(min_length=2, max_length=LOCATOR_MAX)


class Earlier(Strict):
    """What a ``disagreement`` note says an earlier released wheel already ships: the earliest
    wheel of data/wheels.yaml (``2.11.0``) and the file in it (``torch/xpu/graphs.py``) that has
    what the change calls new. The note's text names them as ``{earlier.wheel}`` and
    ``{earlier.file}``. The build checks both against the committed locks
    (``wheel.evidence.earlier_problems``): an identifier of the change that the lock finds in that
    file of that wheel, or a probe of the change (or of a change in the note's ``refs``) on
    exactly that file, observed there and not in the wheel before."""

    wheel: str = Field(pattern=FULL_VERSION)
    file: str = Field(min_length=3)


class Note(Strict):
    """A caveat shown next to a fact: a disagreement, a self-reported figure, an inference."""

    kind: Literal["disagreement", "self-reported", "inferred", "secondary", "unverified"]
    text: Text
    sources: list[Cite] = []
    #: For an ``inferred`` note: the values it derives (names in the fact's ``values``, or
    #: ``figure.baseline``, ``rollback.removed_in``, a release field). Its text says how;
    #: these values are exempt from the value-to-locator check.
    values: list[str] = []
    #: Other changes this note is about (a related fact in another release); linked on the page.
    refs: list[str] = []
    #: For a ``disagreement`` note: the earliest wheel that already ships what the change calls new
    earlier: Optional[Earlier] = None

    @model_validator(mode="after")
    def _earlier(self) -> Note:
        if self.earlier is not None and self.kind != "disagreement":
            raise ValueError("'earlier' belongs to a note of kind 'disagreement'")
        return self


class ErrorMessage(Strict):
    """An exact message a user sees. ``origin`` says where the wording comes from."""

    message: str = Field(min_length=3)
    #: quoted: a source quotes it; wheel: read from the released wheel (evidence); otherwise who
    #: prints it, a standard message not quoted by a source: python (the interpreter), torch (torch's
    #: own code), cuda (the CUDA runtime), loader (the dynamic loader, loading a shared library), pip;
    #: run: what the change's proof printed in its release (validated against the proof lock)
    origin: Literal["quoted", "wheel", "python", "torch", "cuda", "loader", "pip", "run"]


class Fix(Strict):
    steps: Annotated[list[str], TEXT] = Field(min_length=1)
    before: Optional[str] = None
    after: Optional[str] = None
    language: Literal["python", "bash", "text"] = "python"

    @property
    def more_steps(self) -> int:
        """Steps after the first (a table shows the first and links to the rest)."""
        return len(self.steps) - 1


class Rollback(Strict):
    switches: list[str] = Field(min_length=1)
    note: Text
    removed_in: Optional[str] = Field(default=None, pattern=VERSION)


class Figure(Strict):
    value: float
    max: Optional[float] = None
    unit: Literal["x", "ms", "s", "percent", "MiB"]
    #: The source gives a bound, not a point: "more than 100x", "up to 21.7x".
    bound: Optional[Literal["more_than", "up_to"]] = None
    baseline: Optional[float] = None
    hardware: Optional[str] = None
    verification: Literal["self-reported", "independent", "analyst"]


class Probe(Strict):
    """A check against the released wheels, read straight from the zip (no install).

    ``file``: a path inside the wheel (``*`` globs allowed); with ``contains``, whether
    that text occurs in it, otherwise whether the file exists. ``metadata``: a field of
    the wheel's METADATA (``Requires-Python``, ``Requires-Dist``); with ``contains``,
    whether one of its values contains that text. ``entry_point``: ``group:name`` in the
    wheel's entry_points.txt, counted only if the module it names is in the wheel.
    ``expect`` says, per wheel version,
    what the sources' claim implies; comparing versions shows *when* something changed.
    """

    file: Optional[str] = None
    metadata: Optional[str] = None
    entry_point: Optional[str] = Field(default=None, pattern=r"^[\w.]+:[\w.-]+$")
    contains: Optional[str] = None
    expect: dict[str, bool] = Field(min_length=1)

    @field_validator("expect")
    @classmethod
    def _versions(cls, v: dict) -> dict:
        for k in v:
            if not re.match(FULL_VERSION, k):
                raise ValueError(f"'{k}' is not a wheel version like 2.15.0")
        return v

    @model_validator(mode="after")
    def _one_target(self) -> Probe:
        if sum(x is not None for x in (self.file, self.metadata, self.entry_point)) != 1:
            raise ValueError("a probe names exactly one of 'file', 'metadata' or 'entry_point'")
        if self.metadata is not None and self.contains is None:
            raise ValueError("a metadata probe needs 'contains'")
        return self


class CheckArg(Strict):
    """One argument condition of a ``call`` check: the argument named ``keyword`` (or passed at
    ``position``) must be in one of the states ``when`` lists. ``missing``: not passed (or
    ``None``); ``dynamic``: an expression whose value the checker cannot know; ``literal``: any
    literal; ``value``: the string ``value`` (a ``"cuda:nccl,cpu:gloo"`` list counts when one of
    its parts is the value). ``value`` may be a ``{value-key}`` reference like ``Check.target``."""

    keyword: str
    position: Optional[int] = Field(default=None, ge=0)
    when: list[Literal["missing", "dynamic", "literal", "value"]] = Field(min_length=1)
    value: Optional[str] = None


class Check(Strict):
    """What the code checker (``scripts/atlas/rules.py``) looks for, where the change's values do
    not say it already (a removed ``old`` name, a removed ``param`` and the rollback switches
    become rules by themselves). ``target`` is a dotted name, a method name, a string or a
    ``{value-key}`` / ``{change-id.value-key}`` reference to a value, so nothing is typed twice.

    Kinds: ``call`` a call of ``target`` whose arguments meet every ``args`` condition;
    ``method`` a call of a method named ``target`` on any object that is not a non-torch import;
    ``isinstance`` an isinstance/issubclass test against the class ``target``; ``reload`` code
    that runs a module's body again (the value ``importlib.reload(torch)`` or
    ``del sys.modules["torch"]``); ``name`` any use of the dotted name ``target``."""

    kind: Literal["call", "method", "isinstance", "reload", "name"]
    target: str = Field(min_length=1)
    args: list[CheckArg] = []
    severity: Optional[Literal["breaks", "behavior", "deprecated", "deprecated-switch", "platform"]] = None
    #: a note that is nearly always noise on real code is shown only in a file whose text matches
    #: this regular expression (the code shows the condition: an ``"mps"`` device string), or with
    #: ``--notes all``; a plain pattern both engines read alike (Python ``re``, JavaScript RegExp)
    shown_if: Optional[str] = Field(default=None, min_length=1)
    #: ``call`` only: a call that is the first argument of a method of one of these names
    #: (``model.load_state_dict(torch.load(p))``: what it loads is a state dict) is not reported
    into: list[Annotated[str, Field(pattern=r"^[A-Za-z_]\w*$")]] = []
    #: ``call`` with ``into`` only: the calls that allowlist what the new default refuses
    #: (``"{allow}"``: torch.serialization.add_safe_globals); a file that calls one has handled its loads
    allowed_by: list[str] = []

    @field_validator("shown_if")
    @classmethod
    def _pattern(cls, v: Optional[str]) -> Optional[str]:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from None
            if re.search(r"\(\?[<P=!]|\\[AZz]", v):
                raise ValueError("use a pattern both engines read alike: no lookaround, named group, \\A or \\Z")
        return v


class ArgAction(Strict):
    """What ``--fix`` does with one argument of the old call that has this literal value: ``drop``
    it, put ``text`` (source code) in its place, and/or add ``suffix`` after the call."""

    drop: bool = False
    text: Optional[str] = None
    suffix: Optional[str] = None

    @model_validator(mode="after")
    def _one(self) -> ArgAction:
        if self.drop == (self.text is not None):
            raise ValueError("an argument is either dropped or replaced by 'text'")
        return self


class ArgMap(Strict):
    """An argument of the old call (by keyword, or at ``position``) and what each of its literal
    values (their Python spelling: ``True``, ``'cuda'``) becomes; ``*``: any other value passed by
    keyword, whose source replaces ``{value}`` in the text; without ``*`` it needs a person."""

    position: Optional[int] = Field(default=None, ge=0)
    values: dict[str, ArgAction] = Field(min_length=1)


class Rewrite(Strict):
    """A machine-readable fix (``atlas_check.py code --fix``) of the rules of this change whose
    target is ``old``: its uses become ``new`` (a dotted name; a module's names move with it).

    A call of it also gets ``args`` (source text, put first) and ``keywords`` (``name=value`` source
    text or a ``{value-key}`` reference to one, added last), and each
    argument ``map`` names is dropped or replaced by its literal value. ``positional: suggest``:
    a call that passes positional arguments is left to a person (they would shift); a list names
    the old parameters, so each positional argument is passed by that keyword; ``bare: call``
    turns a bare use (``@custom_fwd``) into a call with those arguments, ``bare: suggest`` leaves it.
    ``apply: never``: the safe choice needs a person (``torch.load``'s ``weights_only``); it is
    shown as a suggestion and never applied. The checker applies the rest only where the new name
    (and each keyword it adds) resolves in every release of the window, by the runtime locks."""

    old: str = Field(min_length=1)
    new: str = Field(min_length=1)
    args: list[str] = []
    keywords: list[str] = []
    map: dict[str, ArgMap] = {}
    positional: Union[Literal["keep", "suggest"], list[str]] = "keep"
    bare: Literal["keep", "call", "suggest"] = "keep"
    apply: Literal["safe", "never"] = "safe"
    #: with ``apply: never``: the UI string that names the person's choices; the suggestion then
    #: shows no edit (adding the new default alone would change nothing), only those choices
    choice: Optional[str] = Field(default=None, pattern=r"^check\.why\.[a-z_]+$")

    @model_validator(mode="after")
    def _choice_is_for_a_person(self) -> Rewrite:
        if self.choice is not None and self.apply != "never":
            raise ValueError("'choice' goes with 'apply: never': a fix that is applied needs no choice")
        return self


class WheelClaim(Strict):
    """What a curated change says that the committed wheel locks can confirm (``wheel/confirm.py``).
    ``release`` is the release the change belongs to; the claim compares its wheel with the wheel
    of the release before it.

    Kinds: ``warns`` the wheel of ``release`` announces a deprecation at ``name`` (a
    ``data/evidence/deprecations-<v>.tsv`` row whose place is ``name`` or inside it) and the wheel
    before does not; ``stops_warning`` the wheel before warns at ``name`` and this one does not;
    ``default`` the installed ``release`` gives ``name``'s parameter ``param`` the default
    ``default`` and the release before gave another (``data/evidence/runtime-<v>.txt``);
    ``resolves`` / ``absent``: ``name`` resolves / does not resolve in the installed release;
    ``no_python`` / ``no_platform``: the registry lists wheels of the release before for CPython
    ``name`` (``3.8``) / for the platform family ``name`` (``macos-x86_64``), and none of this
    release (the registry's file list in ``data/evidence.lock.yaml``)."""

    kind: Literal["warns", "stops_warning", "default", "resolves", "absent", "no_python", "no_platform"]
    name: str = Field(min_length=3)
    #: with warns / stops_warning: only the deprecations whose message contains this text
    contains: Optional[str] = None
    param: Optional[str] = None
    default: Optional[str] = None

    @model_validator(mode="after")
    def _param(self) -> WheelClaim:
        if (self.kind == "default") != (self.param is not None and self.default is not None):
            raise ValueError("'param' and 'default' go together, with kind 'default' only")
        return self


class Symptom(Strict):
    """What a proof's ``code`` shows in the change's release and in no release before it: a warning
    (its category, as Python names it), an error (the exception, as the release names it:
    ``_pickle.UnpicklingError``) or a line the code prints (``output``). ``message`` is a verbatim
    part of the first line. ``shown``: whether Python's default warning filters print the warning
    when the code runs in a module imported by a program (warnings only)."""

    warning: Optional[str] = Field(default=None, pattern=r"^[A-Za-z_][\w.]*$")
    error: Optional[str] = Field(default=None, pattern=r"^[A-Za-z_][\w.]*$")
    output: bool = False
    message: str = Field(min_length=1)
    shown: Optional[bool] = None

    @model_validator(mode="after")
    def _one_kind(self) -> Symptom:
        if sum((self.warning is not None, self.error is not None, self.output)) != 1:
            raise ValueError("give exactly one of 'warning', 'error' or 'output: true'")
        if (self.warning is not None) != (self.shown is not None):
            raise ValueError("'shown' goes with 'warning' (does Python's default filter print it?), and only there")
        return self


#: Why a claim cannot run on this project's machines (CPU-only x86-64 Linux, PyPI only); each has
#: a UI string ``proof.cannot.<code>``.
CannotRun = Literal["gpu", "index", "macos", "conda", "processes", "python", "glibc"]
#: The artifact that proves such a claim instead; each has a UI string ``proof.artifact.<code>``.
ProofArtifact = Literal["wheel-tags", "release-matrix", "release-notes"]


class RollbackRun(Strict):
    """One rollback switch of the change, run: ``code`` is the change's code with ``switch`` (one of
    ``rollback.switches``, verbatim) set. It must raise nothing and show no symptom in every release
    from the change's to the one before ``rollback.removed_in``, and show it again there."""

    switch: str = Field(min_length=2)
    code: str = Field(min_length=3)


class Proof(Strict):
    """A curated change executed in the real releases (``atlas prove`` installs each release and
    runs these; ``data/evidence/proofs-<wheel>.json`` holds the outcomes; ``wheel/proofs.py``
    judges them). The code run is the page's own: ``setup`` followed by the change's
    ``fix.before`` shows ``symptom`` from the change's release on and in no release before it;
    ``setup`` followed by ``fix.after`` runs without an error or any warning in every release from
    ``fix_from`` to the newest, and not in the release before ``fix_from``. Where the page's code
    cannot run here as it is (it needs a GPU, the network, a package the venvs lack), ``code`` and
    ``after`` replace it, and the change page shows what ran. A claim no CPU-only Linux machine can
    run says why (``cannot_run``) and which artifact proves it instead (``artifact``)."""

    setup: Optional[str] = None
    code: Optional[str] = None
    symptom: Optional[Symptom] = None
    after: Optional[str] = None
    fix_from: Optional[str] = Field(default=None, pattern=VERSION)
    #: releases in the fix's range where it runs without an error but with warnings that Python's
    #: default filters hide (a later deprecation of the fix itself, or torch's own code warning);
    #: the page names each with its warning. Every other release in the range must be clean.
    fix_warns: list[Annotated[str, Field(pattern=VERSION)]] = []
    rollback: list[RollbackRun] = []
    cannot_run: Optional[CannotRun] = None
    artifact: Optional[ProofArtifact] = None
    #: a package of data/companions.yaml (torchaudio): every snippet runs with the release of it
    #: built for each torch release installed beside it; a torch release no release of it admits is
    #: left out of the judgement, and the page names those releases
    package: Optional[str] = Field(default=None, pattern=r"^[a-z][a-z0-9_-]*$")

    @model_validator(mode="after")
    def _shape(self) -> Proof:
        runs = any(x is not None for x in (self.setup, self.code, self.symptom, self.after, self.fix_from)) or bool(self.rollback)
        if runs == (self.cannot_run is not None):
            raise ValueError("give what to run (a 'symptom' of the code, a 'fix_from' of the fix, rollback runs) "
                             "or 'cannot_run' with its 'artifact', not both")
        if (self.cannot_run is None) != (self.artifact is None):
            raise ValueError("'cannot_run' and 'artifact' go together")
        if self.code is not None and self.symptom is None:
            raise ValueError("'code' needs its 'symptom': what the code shows in the change's release")
        if self.fix_warns and self.fix_from is None:
            raise ValueError("'fix_warns' needs 'fix_from': it names releases in the fix's range")
        if self.after is not None and self.fix_from is None:
            raise ValueError("'after' needs 'fix_from': the first release the fix runs clean in")
        if self.package is not None and self.cannot_run is not None:
            raise ValueError("'package' names what runs beside torch; a proof that cannot run has none")
        return self


class Change(Strict):
    id: str = Field(pattern=FACT_ID)
    type: ChangeType
    area: Area
    breaking: Optional[bool] = None
    values: dict[str, Value] = {}
    title: Text = Field(min_length=5)
    summary: Text = Field(min_length=5)
    affected: Annotated[Optional[str], TEXT] = None
    symptom: Annotated[Optional[str], TEXT] = None
    errors: list[ErrorMessage] = []
    fix: Optional[Fix] = None
    rollback: Optional[Rollback] = None
    figure: Optional[Figure] = None
    notes: list[Note] = []
    probes: list[Probe] = []
    #: code-checker matchers (rules.py); tooling, not a fact: left out of dumps, so feed hashes stay
    check: list[Check] = Field(default=[], exclude=True)
    #: the checker's machine-readable fixes (``--fix``); tooling like ``check``
    rewrite: list[Rewrite] = Field(default=[], exclude=True)
    #: what the committed wheel locks confirm of this change (shown on its page; a claim they
    #: contradict stops the build)
    wheel: list[WheelClaim] = []
    #: the change executed in the real releases (``atlas prove``); a lock that contradicts it stops the build
    proof: Optional[Proof] = None
    sources: list[Cite] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_earlier(self) -> Change:
        if sum(n.earlier is not None for n in self.notes) > 1:
            raise ValueError("only one note may name an 'earlier' wheel ({earlier.wheel} in its text)")
        return self

    @property
    def earlier(self) -> Optional[Earlier]:
        """The earliest wheel that already ships what this change calls new, per its notes."""
        return next((n.earlier for n in self.notes if n.earlier is not None), None)

    @property
    def is_breaking(self) -> bool:
        return self.breaking if self.breaking is not None else self.type in BREAKING_TYPES

    @model_validator(mode="after")
    def _proof_runs_the_page(self) -> Change:
        """A proof without its own ``code`` / ``after`` runs the page's ``fix.before`` / ``fix.after``."""
        p = self.proof
        if p is None or p.cannot_run:
            return self
        for own, part, needed in (("code", "before", p.symptom), ("after", "after", p.fix_from)):
            page = self.fix is not None and getattr(self.fix, part) is not None and self.fix.language == "python"
            if needed is not None and getattr(p, own) is None and not page:
                raise ValueError(f"proof: with no proof.{own}, the page's fix.{part} (Python) is what runs; there is none")
        return self


class Faq(Strict):
    id: str = Field(pattern=FACT_ID)
    question: Text
    answer: Text
    refs: list[str] = []
    notes: list[Note] = []
    sources: list[Cite] = Field(min_length=1)


class Person(Strict):
    name: str
    affiliation: Optional[str] = None


class Event(Strict):
    id: str = Field(pattern=FACT_ID)
    kind: Literal["webinar"]
    title: Text
    summary: Text
    start: dt.datetime
    timezone: str
    speakers: list[Person] = []
    host: Optional[Person] = None
    notes: list[Note] = []
    sources: list[Cite] = Field(min_length=1)

    @field_validator("start")
    @classmethod
    def _naive_local(cls, v: dt.datetime) -> dt.datetime:
        if v.tzinfo is not None:
            raise ValueError("give the local wall time without offset; the zone goes in 'timezone'")
        return v


class Coverage(Strict):
    """Independent or analyst coverage reported by a source (second-hand)."""

    id: str = Field(pattern=FACT_ID)
    outlet: str
    date: dt.date
    values: dict[str, Value] = {}
    summary: Text
    figure: Optional[Figure] = None
    sources: list[Cite] = Field(min_length=1)


class Cell(Strict):
    """One comparable value of the platform and wheel matrix."""

    value: Value
    #: A word about the value that must be translated ("nccl" is the rewritten or the
    #: original implementation): shown through the UI string ``matrix.qualifier.<name>``,
    #: so the value itself stays canonical and language-neutral.
    qualifier: Optional[Literal["original", "rewritten"]] = None
    inferred: bool = False
    note: Annotated[Optional[str], TEXT] = None
    sources: list[Cite] = Field(min_length=1)


class Matrix(Strict):
    """The platform and wheel matrix; the field order is the display order (``MATRIX_KEYS``)."""

    model_config = ConfigDict(extra="forbid")
    python_min: Optional[Cell] = None
    python_max: Optional[Cell] = None
    python_free_threaded: Optional[Cell] = None
    python_new_wheel_host: Optional[Cell] = None
    compile_python_max: Optional[Cell] = None
    cuda_default_wheel: Optional[Cell] = None
    cuda_default_toolkit: Optional[Cell] = None
    cuda_other_wheels: Optional[Cell] = None
    cuda_dropped_wheels: Optional[Cell] = None
    nvidia_min_driver: Optional[Cell] = None
    nvidia_min_arch: Optional[Cell] = None
    nvidia_new_targets: Optional[Cell] = None
    rocm_wheels: Optional[Cell] = None
    rocm_dropped_wheels: Optional[Cell] = None
    rocm_dropped_targets: Optional[Cell] = None
    rocm_new_targets: Optional[Cell] = None
    macos_min_mps: Optional[Cell] = None
    nccl_default_backend: Optional[Cell] = None
    nccl_rollback: Optional[Cell] = None
    nccl_fast_path_min: Optional[Cell] = None
    rccl_fast_path_min: Optional[Cell] = None
    cxx_standard: Optional[Cell] = None
    torchvision_abi: Optional[Cell] = None


#: The matrix keys, in display order, taken from the model. Upgrade pages diff releases key by key.
MATRIX_KEYS = tuple(Matrix.model_fields)


class Release(Strict):
    version: str = Field(pattern=VERSION)
    full_version: Optional[str] = Field(default=None, pattern=FULL_VERSION)
    previous: Optional[str] = Field(default=None, pattern=VERSION)
    released: Optional[dt.date] = None
    published_at: Optional[dt.datetime] = None
    commits: Optional[int] = Field(default=None, ge=0)
    contributors: Optional[int] = Field(default=None, ge=0)
    wheel_index: Optional[str] = None
    #: the changes are a selection of hazards from PyTorch's own pages, not an account of the whole
    #: release: upgrade pages never read their silence as "nothing breaks" or "nothing was dropped"
    selected: bool = False
    headline: Text
    provenance: dict[str, list[Cite]] = {}
    notes: list[Note] = []
    matrix: Matrix = Matrix()
    changes: list[Change] = []
    faq: list[Faq] = []
    events: list[Event] = []
    coverage: list[Coverage] = []


class Source(Strict):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    file: Optional[str] = None
    #: an official web page (pytorch.org, docs, dev-discuss, PyTorch's GitHub): its locators are
    #: quoted from the page and cannot be re-read offline; provenance lists them as such
    url: Optional[str] = Field(default=None, pattern=r"^https://[^\s<>\"'`|]+$")
    language: Literal[LANGS]   # the site languages (langs.py)
    #: the article's own headline, verbatim; None when the text we have carries none
    title: Optional[str] = None
    #: the outlet's name when the source gives one
    publisher: Optional[str] = None
    form: Text
    #: what kind of outlet it is (English text, translated)
    description: Text
    published: dt.date
    #: set when the source states no date: ``published`` is then the earliest date it can
    #: have, and this text says why (English, translated)
    date_note: Annotated[Optional[str], TEXT] = None
    about: str = Field(pattern=VERSION)
    sha256: Optional[str] = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    cited_in: Optional[str] = None
    contribution: Text

    @field_validator("file")
    @classmethod
    def _inside_sources(cls, v: Optional[str]) -> Optional[str]:
        """A path inside the sources folder: relative, ``/``-separated names, no ``.`` or ``..`` step
        (provenance opens it and the sources page shows it; ``../../etc/passwd`` must be neither)."""
        if v is not None and not SOURCE_FILE.match(v):
            raise ValueError(f"{v!r} is not a path inside the sources folder (write it relative to that folder, "
                             "as names separated by '/', without '..', '.' or a leading '/')")
        return v

    @property
    def sha256_short(self) -> Optional[str]:
        """The first 12 hex digits, as shown on the sources page."""
        return self.sha256[:12] if self.sha256 else None


class Sources(Strict):
    sources: list[Source]


class GlossaryTerm(Strict):
    """How one language renders a concept: the one rendering it uses, the ones it avoids, and why.

    An ``avoid`` entry is matched as whole words, case-insensitively; ``*`` at the end of a
    word matches any ending ("ломающ* изменени*"). Chinese has no word boundaries, so there
    an entry matches anywhere."""

    use: str = Field(min_length=1)
    avoid: list[str] = []
    why: Optional[str] = None


class GlossaryEntry(Strict):
    """One concept of ``data/glossary.yaml``, with its rendering in every translated language."""

    id: str = Field(pattern=r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
    en: str = Field(min_length=1)
    terms: dict[str, GlossaryTerm]


class Translation(Strict):
    """One translated text: the text and the hash of the English it translates."""

    en_hash: str = Field(pattern=r"^[0-9a-f]{10}$")
    text: str


FactId = Annotated[str, Field(pattern=FACT_ID)]


class Ledger(Strict):
    """data/published_ids.yaml: every published change id, and redirects for renamed ones."""

    published: list[FactId] = []
    redirects: Optional[dict[FactId, FactId]] = None


#: Why an official item (data/ledger.yaml) is not curated; each code has the UI string
#: ``ledger.reason.<code>`` in every language.
LEDGER_REASONS = ("internal", "cpp", "source-build", "prototype", "no-user-effect", "ci-only", "restated")
#: What an open item would change for a user: the to-do list's priorities.
LEDGER_KINDS = ("removal", "default", "build", "platform", "error-type", "deprecation", "behavior")
LEDGER_STATUSES = ("curated", "excluded", "open")
LedgerReason = Literal[LEDGER_REASONS]   # a tuple inside Literal[] is its members
LedgerKind = Literal[LEDGER_KINDS]


class OfficialItem(Strict):
    """One item of a release's official notes under "Backwards Incompatible Changes" (``bc``) or
    "Deprecations", or a user-facing item found elsewhere in them (``other``). ``status`` has no
    default: every item is judged. What each status needs (a change, a reason, a kind) is checked
    in validate.py, so the message names the missing field."""

    id: str = Field(pattern=r"^2\.\d+-[a-z0-9][a-z0-9-]*$")
    section: Literal["bc", "deprecation", "other"]
    title: str = Field(min_length=1, max_length=300)   # a quote of the notes, shown escaped
    pr: Optional[int] = Field(default=None, gt=0)
    status: Literal[LEDGER_STATUSES]
    change: Optional[str] = None
    reason: Optional[LedgerReason] = None
    kind: Optional[LedgerKind] = None


class OfficialRelease(Strict):
    """A release's official notes: where they are, which sections were read verbatim, their items."""

    release: str = Field(pattern=r"^2\.\d+$")
    url: str
    read: list[Literal["bc", "deprecation"]] = []
    items: list[OfficialItem] = []


class OfficialLedger(Strict):
    """data/ledger.yaml: every item of the official notes' breaking and deprecation sections, 2.1-2.12.
    (Not ``Ledger``, the permanent-URL ledger of data/published_ids.yaml.)"""

    releases: list[OfficialRelease]


class LockEntry(BaseModel):
    observed: dict[str, bool]
    status: str
    hash: Optional[str] = None


class Lock(BaseModel):
    """data/evidence.lock.yaml, as atlas evidence writes it."""

    wheels: dict[str, dict] = {}
    probes: dict[str, LockEntry] = {}
    identifiers: dict[str, dict] = {}   # automatic checks from the data (atlas/wheel/scan.py)
    errors: dict[str, dict] = {}
    entry_points: dict[str, Any] = {}
    registry: dict[str, Any] = {}       # what the installer reports of the registry's files (atlas/wheel/extract.py)


class Wheels(Strict):
    """data/wheels.yaml: which torch wheels the probes are checked against."""

    python: str
    platform: str
    #: every platform tag the installer may pick a wheel of (older releases are manylinux1/2014)
    platforms: list[str] = []
    versions: list[Annotated[str, Field(pattern=FULL_VERSION)]] = Field(min_length=1)
    #: CPython versions the registry is asked about (``3.13t``: the free-threaded build)
    pythons: list[str] = []


class UpdatedEntry(Strict):
    """data/updated.yaml: when a change's fact last changed (its Atom entry's <updated>), and its hash then."""

    hash: str = Field(pattern=r"^[0-9a-f]{12}$")
    updated: Optional[dt.date] = None


def iter_cites(node, owner: str = "", path: str = ""):
    """Yield (owner fact id, field path inside that fact, Cite) for every citation below a model."""
    if isinstance(node, Cite):
        yield owner, path, node
    elif isinstance(node, BaseModel):
        own_id = getattr(node, "id", None)
        if isinstance(own_id, str):   # a fact: paths are relative to it, as in validation messages
            owner, path = own_id, ""
        for name in type(node).model_fields:
            yield from iter_cites(getattr(node, name), owner, f"{path}.{name}".strip("."))
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from iter_cites(v, owner, f"{path}.{k}")
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            yield from iter_cites(v, owner, f"{path}.{i}")


class CompanionPackage(Strict):
    name: str
    basis: Literal["metadata", "readme", "code", "torch_pins", "build", "none"]


class CompanionReadmeRow(Strict):
    series: str              # the release series the README names (``0.8`` covers 0.8.0, 0.8.1)
    torch: str               # a PEP 440 specifier on torch (``==2.9.*``, ``>=2.11``)
    quote: str               # the README's row, verbatim


class CompanionReadme(Strict):
    package: str
    url: str
    rows: list[CompanionReadmeRow]


class CompanionBuild(Strict):
    package: str
    url: str
    quote: str


class CompanionCorrection(Strict):
    package: str
    version: str
    declared: list[str]      # the Requires-Dist lines on torch its METADATA gives (checked against the lock)
    torch: str               # what it needs
    url: str
    quote: str


class CompanionError(Strict):
    """What a package built for another torch release prints when torch moves under it: ``message``
    as the change pages write one (X for a path or a name, N for a number), ``quote`` verbatim from
    the public report at ``url``. The companions page lists it at its ``id``; search finds it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    package: str
    message: str = Field(min_length=10)
    url: str = Field(pattern=r"^https://")
    quote: str


class CompanionPolicy(Strict):
    url: str
    quote: str
    note: str


class CompanionFacts(Strict):
    """data/companions.yaml: what the companion packages' metadata cannot say, cited."""

    policy: CompanionPolicy
    packages: list[CompanionPackage]
    readme: list[CompanionReadme] = []
    build: list[CompanionBuild] = []
    corrections: list[CompanionCorrection] = []
    errors: list[CompanionError] = []


class CompanionRelease(BaseModel):
    uploaded: Optional[str]
    yanked: bool
    sdist: bool
    tags: str                # space-separated wheel tags
    metadata: Optional[dict]


class CompanionLock(BaseModel):
    """data/companions.lock.yaml, as ``atlas companions`` writes it."""

    read: dict
    packages: dict[str, dict[Literal["releases"], dict[str, CompanionRelease]]]
