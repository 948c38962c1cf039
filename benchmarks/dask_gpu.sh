#!/usr/bin/env bash
# grblas_gpu.dask on one host of 2 or more GPUs: the GPU tests (2 workers, NCCL), then the
# scaling runs of `python -m benchmarks.dask`, results added to OUT/dask.json and the log to
# OUT/dask.log.
#
#   bash benchmarks/dask_gpu.sh [OUT]                   # tests + strong scaling, kron 25 on 1, 2 GPUs
#   STRONG="" WEAK="25:1;26:2" TESTS=0 bash benchmarks/dask_gpu.sh   # weak scaling alone
#   STRONG="27:2" WEAK="" TESTS=0 bash benchmarks/dask_gpu.sh        # kron 27 on 2 GPUs
#
# CLIENT_DRIVEN=1 also times the algorithms driven statement by statement from the client.
# WHEELS=DIR installs Dask (and its few dependencies a CUDA image may lack) from wheels in DIR
# first, for a host without a package index.
set -euo pipefail
out=${1:-benchmarks/results}
mkdir -p "$out"
if [ -n "${WHEELS:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "$WHEELS"/*.whl
    export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD:${PYTHONPATH:-}  # the workers import the checkout too
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee -a "$out/dask.log"
status=0
if [ "${TESTS:-1}" = 1 ]; then
    python3 -m pytest -q -p no:cacheprovider -rs tests/test_dask_gpu.py 2>&1 | tee -a "$out/dask.log" || status=1
fi
python3 -m benchmarks.dask --strong "${STRONG-25:1,2}" --weak "${WEAK-}" --iters "${ITERS:-20}" \
    --repeat "${REPEAT:-3}" ${CLIENT_DRIVEN:+--client-driven} --out "$out/dask.json" 2>&1 | grep -v "^20[0-9][0-9]-.* - distributed\." | tee -a "$out/dask.log" || status=1
exit $status
