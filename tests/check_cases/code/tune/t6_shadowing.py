# atlas-check: --from 2.13 --to 2.15
import torch as th
from torch import qr  # expect: name 214-remove-qr


def qr_of(x):
    # a parameter named like the import
    def inner(qr):
        return qr(x)
    return inner(lambda m: m)


def decompose(x):
    return qr(x)  # reported at its import (one finding per cause)


class Solver:
    qr = staticmethod(lambda a: a)

    def run(self, a):
        return self.qr(a)


def local_torch():
    th = {"cholesky": None}
    return th["cholesky"]


def uses_module(a):
    return th.cholesky(a)  # expect: name 214-remove-cholesky


squares = [qr for qr in range(3)]
fns = list(map(lambda th: th.cholesky, [object()]))


def qr(x):  # the module now defines its own qr
    return x


print(qr(1))
