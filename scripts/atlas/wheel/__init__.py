"""What the released torch wheels show: one room, one way in.

In:  the wheel files (zip archives, read with ``ast`` and as bytes; ``extract``), the same
     releases installed one at a time into throwaway virtualenvs and imported (``runtime_lock``
     runs ``probe_runtime`` inside each), and the committed locks those write under ``data/``.
Out: for the site build, everything here is read from the committed locks, never from a wheel:
     parsed surfaces and runtime locks (``parse_surface``, ``parse_runtime``), the API diff of two
     releases as the installed releases judge it (``runtime_diff``), the verdicts of each change's
     identifiers and messages (``ident_verdicts``, ``error_verdicts``), whether each "new in X" an
     earlier wheel already ships is said in a note that names it (``earlier_problems``), and the history of every
     release (``history``, ``Point``, ``meta_diff``).

Modules: ``surface`` (the static API surface of a wheel), ``scan`` (identifiers, messages and entry
points in a wheel), ``evidence`` (probes, locks, verdicts), ``history`` (releases known from their
wheels), ``runtime`` (the runtime lock and the diff it proves), ``extract`` and ``runtime_lock``
(the commands that write the locks), ``probe_runtime`` (runs inside a release's own venv),
``proofs`` (each curated change's proof snippets and the locks that judge them; ``prove_runtime`` runs
them inside a release's venv), ``weights_only`` (each release's ``torch.load(weights_only=True)`` allow-list, for ``atlas_check.py ckpt``).
The site build enters only through this file. The two offline commands, which load and check the
facts before they read any wheel, are entered by ``cli.py`` directly (``extract.run``,
``runtime_lock.run``), so that nothing here imports the pipeline that imports this package.
"""
from __future__ import annotations

from .confirm import Confirmation, judge
from .deprecations import Deprecation
from .deprecations import parse as parse_deprecations
from .evidence import (
    LOCK,
    PRESENT,
    Verdict,
    claim_roles,
    earlier_problems,
    entry_point_findings,
    error_verdicts,
    ident_verdicts,
    parse_surface,
    probe_id,
    stub_errors,
    text_roles,
    wheel_of,
)
from .history import FAMILY_LABELS, MetaRow, Point, history, meta_diff, minor
from .proofs import ProofVerdict
from .proofs import describe as describe_run
from .proofs import judge as judge_proof
from .proofs import parse_lock as parse_proof_lock
from .runtime import module_path, params_text, parse_runtime, runtime_diff
from .weights_only import read_weights_only, weights_only_table

__all__ = ["FAMILY_LABELS", "LOCK", "PRESENT", "Confirmation", "Deprecation", "MetaRow", "Point", "ProofVerdict", "Verdict", "claim_roles", "describe_run", "earlier_problems", "entry_point_findings", "error_verdicts",
           "history", "ident_verdicts", "judge", "judge_proof", "meta_diff", "minor", "module_path", "params_text", "parse_deprecations", "parse_proof_lock", "parse_runtime",
           "parse_surface", "probe_id", "read_weights_only", "runtime_diff", "stub_errors", "text_roles", "weights_only_table", "wheel_of"]

