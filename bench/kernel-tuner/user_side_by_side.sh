#!/usr/bin/env bash
# rooftune and Kernel Tuner tune the same kernel spec example (examples/user/conv2d) over the same
# space on this GPU (bench/kernel-tuner/user_side_by_side.py says how); the table goes to $OUT.
# Kernel Tuner comes from wheels carried in the ignored folder .whl/ (kernel_tuner and what the
# device's Python lacks: jsonschema and its parts, xmltodict, python-constraint2); NumPy and CuPy
# are the device's own.
#
# usage, from the repository root on the GPU host, after the build (ci/user-gpu.sh does both):
#   bench/kernel-tuner/user_side_by_side.sh [ROOFTUNE]
set -euo pipefail
RT=${1:-build-gpu/rooftune}
OUT=${OUT:-results/user-side-by-side}
mkdir -p "$OUT"
ls .whl/kernel_tuner-*.whl >/dev/null 2>&1 || { echo "no Kernel Tuner wheel in .whl/" >&2; exit 2; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/rooftune-kt-site .whl/*.whl
export PYTHONPATH=/tmp/rooftune-kt-site${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
python3 -c "import kernel_tuner, cupy; print('kernel_tuner', kernel_tuner.__version__, 'cupy', cupy.__version__)"
python3 bench/kernel-tuner/user_side_by_side.py --rooftune "$RT" --out "$OUT"
