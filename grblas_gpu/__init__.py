"""grblas_gpu: a GraphBLAS-style algebra that runs on NVIDIA GPUs (CuPy) and on CPUs (NumPy).

>>> import grblas_gpu as gb
>>> A = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3)
>>> d = gb.Vector.from_coo([0], [0.0], size=3)
>>> d(gb.binary.min) << d.vxm(A, gb.semiring.min_plus)
"""

from ._checkout import find_algorithms_beside_package

find_algorithms_beside_package()

from . import agg, core, descriptor, dtypes, exceptions, io, op, progress, viz
from . import operator_calls as _operator_calls  # noqa: F401 - binds the operators' call on objects
from .backends import default_backend, get_backend, gpu_available, use_backend
from .descriptor import Descriptor
from .dtypes import (
    BOOL,
    FP32,
    FP64,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    DataType,
    lookup_dtype,
)
from .exceptions import (
    DimensionMismatch,
    DomainMismatch,
    EmptyObject,
    GraphBLASError,
    IndexOutOfBound,
    InvalidIndex,
    InvalidValue,
    NotImplementedException,
    OutOfMemory,
    OutputNotEmpty,
)
from .expressions import replace
from .functional import (
    apply,
    assign,
    eWiseAdd,
    eWiseMult,
    eWiseUnion,
    extract,
    kronecker,
    mxm,
    mxv,
    reduce,
    transpose,
    vxm,
)
from .indexing import ALL
from .mask import Mask
from .matrix import Matrix
from .operators import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Semiring,
    UnaryOp,
    binary,
    indexunary,
    monoid,
    select,
    semiring,
    unary,
)
from .ops import indexing as _indexing  # noqa: F401 - loading the operations binds what objects call
from .scalar import Scalar
from .vector import Vector

__version__ = "0.1.0"

# ``gb.select`` is the select-operator namespace (``gb.select.tril``); called, it is the
# C-style function ``gb.select(C, mask, accum, op, A, thunk, desc)``.
__all__ = [
    "Matrix", "Vector", "Scalar", "Mask", "Descriptor", "ALL",
    "unary", "binary", "monoid", "semiring", "indexunary", "op", "agg", "replace", "viz", "progress",
    "UnaryOp", "BinaryOp", "Monoid", "Semiring", "IndexUnaryOp",
    "mxm", "mxv", "vxm", "eWiseAdd", "eWiseMult", "eWiseUnion", "apply", "select", "reduce",
    "extract", "assign", "transpose", "kronecker",
    "use_backend", "default_backend", "get_backend", "gpu_available",
    "dtypes", "exceptions", "descriptor", "io", "core", "lookup_dtype", "DataType",
    "BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "FP32", "FP64",
    "GraphBLASError", "DimensionMismatch", "DomainMismatch", "EmptyObject", "IndexOutOfBound", "InvalidIndex",
    "InvalidValue", "NotImplementedException", "OutOfMemory", "OutputNotEmpty",
]
