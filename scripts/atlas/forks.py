"""Run a pipeline step on another core while this process goes on.

In:  a function and its arguments: ``job = Forked(fn, *args)`` forks and runs ``fn(*args)`` in the child.
Out: ``job.result()``, the child's return value (pickled back through a pipe), or the child's
     ``DataError`` raised again here; any other failure becomes ``RuntimeError`` with its message.
     ``job.cancel()`` stops a child whose result is no longer wanted.

Only builds use it (``site.generate`` when not serving): under ``mkdocs serve`` or pytest other
threads run, and forking a process with threads is unsafe. Where ``fork`` does not exist
(Windows), ``fn`` runs at once, in this process.
"""
from __future__ import annotations

import multiprocessing
from typing import Any, Callable

from .load import DataError


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _outcome(fn: Callable, args: tuple) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except DataError as exc:
        return "error", exc.problems
    except Exception as exc:  # noqa: BLE001 - sent to the parent as a message
        return "crash", f"{type(exc).__name__}: {exc}"


def _child(send, fn: Callable, args: tuple) -> None:
    send.send(_outcome(fn, args))
    send.close()


class Forked:
    def __init__(self, fn: Callable, *args: Any):
        self.proc = None
        if not can_fork():
            self._done = _outcome(fn, args)
            return
        ctx = multiprocessing.get_context("fork")
        self._recv, send = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True)
        self.proc.start()
        send.close()

    def result(self) -> Any:
        if self.proc is None:
            kind, value = self._done
        else:
            try:
                kind, value = self._recv.recv()   # before join: a large result would fill the pipe
            except EOFError:
                self.proc.join()
                kind, value = "crash", f"the forked process exited with status {self.proc.exitcode}"
            self.proc.join()
        if kind == "ok":
            return value
        if kind == "error":
            raise DataError(value)
        raise RuntimeError(value)

    def cancel(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.proc.terminate()
            self.proc.join()
