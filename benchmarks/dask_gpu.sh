#!/usr/bin/env bash
# grblas_gpu.dask on one host of 2 or more GPUs: the GPU tests (2 workers, NCCL), then the
# scaling runs of `python -m benchmarks.dask`, results added to OUT/dask.json and the log to
# OUT/dask.log.
#
#   bash benchmarks/dask_gpu.sh [OUT]                   # tests + strong scaling, kron 25 on 1, 2 GPUs
#   STRONG="" WEAK="25:1;26:2" TESTS=0 bash benchmarks/dask_gpu.sh   # weak scaling alone
#   STRONG="27:2" WEAK="" TESTS=0 bash benchmarks/dask_gpu.sh        # kron 27 on 2 GPUs
#
# CONFIGS runs one process per configuration instead, in the order given, each under its own
# time limit (a hang or a failure in one leaves the others; the results file gets each record
# as it ends), the tests after them:
#
#   CONFIGS="strong:26:4@150 strong:26:1@150 strong:28:4@200 weak:27:4@120" CHECK=28 COMPARE=26 \
#       bash benchmarks/dask_gpu.sh OUT
#
# CHECK: scales whose BFS and PageRank are checked by their invariants; COMPARE: scales whose
# results are compared across worker counts. CLIENT_DRIVEN=1 also times the algorithms driven
# statement by statement from the client; PROFILE=1 times the phases of one BFS and one SSSP
# call on each worker (more than one); FORMS=1 also times BFS and SSSP with the products' form
# chosen by the frontier's share of vertices alone; ACTORS=1 also times the calls through the workers'
# actors (grblas_gpu.dask.actors), alternated with tasks. WHEELS=DIR installs Dask (and its few dependencies a
# CUDA image may lack) from wheels in DIR first, for a host without a package index.
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
bench() {  # bench STUDY SPEC [LIMIT]
    local strong="" weak=""
    if [ "$1" = weak ]; then weak=$2; else strong=$2; fi
    timeout "${3:-100000}" python3 -m benchmarks.dask --strong "$strong" --weak "$weak" --iters "${ITERS:-20}" \
        --repeat "${REPEAT:-3}" --check "${CHECK:-}" --compare "${COMPARE:-}" ${CLIENT_DRIVEN:+--client-driven} \
        ${PROFILE:+--profile} ${FORMS:+--forms} ${ACTORS:+--actors} \
        --out "$out/dask.json" 2>&1 | grep -v "^20[0-9][0-9]-.* - distributed\." | tee -a "$out/dask.log" || status=1
}
tests() {
    python3 -m pytest -q -p no:cacheprovider -rs tests/test_dask_gpu.py tests/test_dask_actors.py 2>&1 | tee -a "$out/dask.log" || status=1
}
if [ -n "${CONFIGS:-}" ]; then
    for c in $CONFIGS; do
        study=${c%%:*}; rest=${c#*:}; spec=${rest%@*}; limit=${rest#*@}
        [ "$limit" = "$rest" ] && limit=100000
        echo "== $study kron ${spec%%:*} on ${spec#*:} workers (at most $limit s)" | tee -a "$out/dask.log"
        bench "$study" "$spec" "$limit"
    done
    if [ "${TESTS:-1}" = 1 ]; then tests; fi
    exit $status
fi
if [ "${TESTS:-1}" = 1 ]; then tests; fi
bench strong "${STRONG-25:1,2}"
if [ -n "${WEAK:-}" ]; then bench weak "$WEAK"; fi
exit $status
