"""Host cost of packing a kernel launch's arguments, side by side in one process:
``python -m benchmarks.launch_pack``.

The launches of the listed and balanced push, the pull by columns and the element-wise maps
give their arguments by name (:attr:`grblas_gpu.backends.cupy.signatures.KernelSignature.pack`).
This times that pack for the balanced push (eleven arguments) against the tuple the launch
wrote by position before, and against packing by name through a dict of the arguments (the
pack of the matrix products' passes before it was a function).  A launch prepared ahead (the
pulls', the frontier loop's) takes only its per-call arguments, by name
(:attr:`~grblas_gpu.backends.cupy.signatures.KernelSignature.pack_per_call`): timed for the
bare one-launch pull (three) and the merge pull (six) against the pointers by position.  No
GPU is needed.
"""

from __future__ import annotations

import operator
import timeit

from grblas_gpu.backends.cupy.signatures import PUSH_LISTED, SPMV_MERGE, SPMV_VECTOR_BARE


def main(number: int = 500_000) -> None:
    """Print the cost of each pack, in ns, the best of five runs of ``number`` packs."""
    sig = PUSH_LISTED["balanced"]
    a, b, c, d, e, f, g, h, i, j, k = (object() for _ in range(11))
    getter = operator.itemgetter(*sig.params)

    def by_dict(**given: object) -> tuple[object, ...]:
        if len(given) != len(sig.params):
            raise TypeError("arguments missing or unknown")
        return getter(given)  # type: ignore[no-any-return]

    cases = {
        "by position (a tuple)": lambda: (a, b, c, d, e, f, g, h, i, j, k),
        "by name, a dict read in order": lambda: by_dict(
            indptr=a, indices=b, values=c, frontier=d, fvals=e, nfront=f, ends=g, mask=h, complement=i, out=j,
            present=k),
        "by name, KernelSignature.pack": lambda: sig.pack(
            indptr=a, indices=b, values=c, frontier=d, fvals=e, nfront=f, ends=g, mask=h, complement=i, out=j,
            present=k),
        "3 per call, by position": lambda: (a, b, c),
        "3 per call, pack_per_call": lambda: SPMV_VECTOR_BARE.pack_per_call(values=a, x=b, out=c),
        "6 per call, by position": lambda: (a, b, c, d, e, f),
        "6 per call, pack_per_call": lambda: SPMV_MERGE.pack_per_call(values=a, x=b, x_present=c, row_mask=d, out=e,
                                                                      present=f),
    }
    for label, fn in cases.items():
        best = min(timeit.repeat(fn, number=number, repeat=5)) / number
        print(f"{label:32s} {best * 1e9:6.0f} ns per launch")


if __name__ == "__main__":
    main()
