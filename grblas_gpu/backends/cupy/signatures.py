"""Kernel signatures: each kept launch's parameters, named as its template declares them, and
which of them change from call to call.

A kept launch (:func:`.launch.launch_kept`) packs a kernel's arguments once and writes only
those that change at each call.  Which ones change is declared here once per kernel, by
name. The parameter list is read from the kernel's template in ``templates/``, so the
positions the launches take (:attr:`KernelSignature.changing`) follow the template, and a
name that the template lacks raises as the module loads. Everything not listed is
constant for the launch's lifetime: the matrix's own arrays, sizes and flags.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .codegen import template

__all__ = [
    "KernelSignature", "signature", "template_params",
    "SPMV_VECTOR", "SPMV_VECTOR_BARE", "PUSH_BITMAP", "PUSH_RESET", "PUSH_RELAX",
    "MASK_ALLOWED", "ADD_INTO", "ADD_CHANGES", "SET_WHERE",
]


@dataclass(frozen=True)
class KernelSignature:
    """A kernel's parameter names (in order) and those that change from call to call."""

    template: str
    entry: str
    params: tuple[str, ...]
    per_call: frozenset[str]

    @property
    def changing(self) -> tuple[int, ...]:
        """Positions of the parameters that change from call to call (what a kept launch writes)."""
        return tuple(i for i, name in enumerate(self.params) if name in self.per_call)

    @property
    def constant(self) -> tuple[str, ...]:
        """Names of the parameters packed once with the launch."""
        return tuple(name for name in self.params if name not in self.per_call)


@functools.cache
def _macros(name: str) -> dict[str, tuple[str, ...]]:
    """Parameter-list macros of a template (``#define GB_POSITION_PARAMS ...``): name -> the
    parameter names they stand for."""
    found = {}
    for m in re.finditer(r"#define\s+(\w+)\s*\\\n((?:.*\\\n)*.*)", template(name)):
        body = m.group(2).replace("\\\n", " ")
        found[m.group(1)] = tuple(_param_name(p) for p in body.split(","))
    return found


def _param_name(param: str) -> str:
    return re.findall(r"\w+", param)[-1]


@functools.cache
def template_params(name: str, entry: str) -> tuple[str, ...]:
    """The parameter names of the kernel ``{{KERNEL}}<entry>`` in template ``name``."""
    text = template(name)
    m = re.search(r"__global__\s+void\s+\{\{KERNEL\}\}" + re.escape(entry) + r"\s*\(([^)]*)\)", text)
    if m is None:
        raise LookupError(f"templates/{name} declares no kernel {{{{KERNEL}}}}{entry}")
    names: list[str] = []
    for param in m.group(1).split(","):
        param = param.strip()
        names.extend(_macros(name).get(param, (_param_name(param),)))
    return tuple(names)


def signature(name: str, entry: str, per_call: str) -> KernelSignature:
    """The signature of kernel ``{{KERNEL}}<entry>`` in template ``name``, whose parameters
    named in ``per_call`` (space separated) change from call to call."""
    params = template_params(name, entry)
    changing = frozenset(per_call.split())
    unknown = changing - set(params)
    if unknown:
        raise LookupError(f"templates/{name} {{{{KERNEL}}}}{entry} has no parameter {sorted(unknown)}")
    return KernelSignature(name, entry, params, changing)


# The pull with a group of lanes per row: the matrix values (cast values differ), x and its
# presence, the row mask, the result and its presence, and a claimed output's values and
# presence; bare: the same launch with no vector presence, mask, result presence or claim.
SPMV_VECTOR = signature("spmv_csr_vector.cu", "", "values x x_present row_mask out present c c_bits")
SPMV_VECTOR_BARE = signature("spmv_csr_vector.cu", "", "values x out")
# Pushes: the values, the frontier, the mask, the result (or the output written in place and
# the report), and the stream's count state and the word the count goes to.
PUSH_BITMAP = signature("spmspv_push.cu", "_bitmap", "values in_frontier fvals mask out present state counted")
PUSH_RESET = signature("bitmap.cu", "_reset", "z bits")
PUSH_RELAX = signature("spmspv_push.cu", "_relax", "values in_frontier fvals c_bits c d_bits d state counted")
# Element-wise launches kept per size: every array (and the value set_where writes, as a word).
MASK_ALLOWED = signature("bitmap.cu", "_allowed", "bits values within z state counted")
ADD_INTO = signature("binary.cu", "_add_into", "x_bits x y_bits y")
ADD_CHANGES = signature("binary.cu", "_add_changes", "x_bits x y_bits y z_bits z d_bits d state counted")
SET_WHERE = signature("bitmap.cu", "_set_where", "m a bits values")
