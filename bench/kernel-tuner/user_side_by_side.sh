#!/usr/bin/env bash
# rooftune and Kernel Tuner tune the same kernel spec example (examples/user/conv2d) over the same
# space on this GPU (bench/kernel-tuner/user_side_by_side.py says how); the table goes to $OUT.
# Kernel Tuner comes from wheels carried in the ignored folder .whl/ (kernel_tuner and what the
# device's Python lacks: jsonschema and its parts, xmltodict, python-constraint2, and CUDA Python,
# cuda-bindings and cuda-pathfinder, the backend used where CuPy is absent); NumPy is the device's
# own (PyTorch's Python at /opt/torch/.venv on the lent GPU hosts, else python3).
#
# usage, from the repository root on the GPU host, after the build (ci/user-gpu.sh does both):
#   bench/kernel-tuner/user_side_by_side.sh [ROOFTUNE]
set -euo pipefail
RT=${1:-build-gpu/rooftune}
OUT=${OUT:-results/user-side-by-side}
mkdir -p "$OUT"
ls .whl/kernel_tuner-*.whl >/dev/null 2>&1 || { echo "no Kernel Tuner wheel in .whl/" >&2; exit 2; }
PY=python3
for p in /opt/torch/.venv/bin/python3 python3; do
  if "$p" -c "import numpy" 2>/dev/null; then PY=$p; break; fi
done
# wheels are zip archives: unpacked straight into a private folder, since PyTorch's Python on the
# GPU host may have no pip
rm -rf /tmp/rooftune-kt-site
"$PY" -c "import glob, sys, zipfile
for w in sorted(glob.glob('.whl/*.whl')):
    zipfile.ZipFile(w).extractall(sys.argv[1])" /tmp/rooftune-kt-site
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PYTHONPATH=/tmp/rooftune-kt-site${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
"$PY" -c "import kernel_tuner, numpy; print('kernel_tuner', kernel_tuner.__version__, 'numpy', numpy.__version__)"
"$PY" bench/kernel-tuner/user_side_by_side.py --rooftune "$RT" --out "$OUT"
