#!/usr/bin/env bash
# trust.new_params: every parameter this wave added to a kernel (pipelined dspmm, the triangular
# solve's transport, gemm's GPU placement, the pipelined Tiled SpMM with its skewed reads, warp
# mapping, swizzled stages, bank-ordered steps, interleaved register tiles and thread-block clusters, the fused sparse-DNN layer's loads in flight,
# stage layouts, bank-ordered steps and cp.async stage buffers, the eigen schedules and
# microbenchmarks)
# refuses garbage at `validate` with exit 2 and a message naming the file, line, column, parameter
# and kernel; a good value of each is accepted (so the refusal is about the value).
#   $1 = rooftune, $2 = this folder, $3 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
set +e
rt_args RT HERE WORK -- "$@"
rt_scratch "$WORK"
# write MATRIX PROBLEM KERNEL PARAMS: a one-kernel config in $WORK/c.yaml (params on line 7).
write() {
  printf '%s\n' "experiment: {name: new-params}" "matrices:" "  - $1" "problem: $2" "kernels:" \
    "  - name: $3" "    params: $4" >"$WORK/c.yaml"
}
# case MATRIX PROBLEM KERNEL PARAM GOOD BAD
n=0
case_() {
  local m=$1 p=$2 k=$3 name=$4 good=$5 bad=$6
  write "$m" "$p" "$k" "{$name: [$good]}"
  "$RT" validate "$WORK/c.yaml" >"$WORK/out" 2>&1 || fail "$k $name = $good refused: $(cat "$WORK/out")"
  write "$m" "$p" "$k" "{$name: [$bad]}"
  "$RT" validate "$WORK/c.yaml" >"$WORK/out" 2>&1
  local rc=$?
  [ "$rc" = 2 ] || fail "$k $name = $bad: exit $rc, expected 2: $(cat "$WORK/out")"
  local msg
  msg=$(cat "$WORK/out")
  for want in "c.yaml:7:" "params.$name" "'$k'"; do
    [[ "$msg" == *"$want"* ]] || fail "$k $name = $bad: the message lacks '$want': $msg"
  done
  n=$((n + 1))
}
banded='{name: b, generator: banded, rows: 64, bandwidth: 2}'
lap='{name: l, generator: laplacian, stencil: 5, nx: 8}'
dense='{name: d, generator: banded, rows: 4, bandwidth: 1}'
cube='{name: s, generator: stencil, points: 7, nx: 4, ny: 4, nz: 4}'
case_ "$banded" "{K: [16]}" dspmm.cpu.sender stages 2 -1
case_ "$banded" "{K: [16]}" dspmm.cpu.sender stage_buffers 2 1
case_ "$banded" "{K: [16]}" dspmm.cuda.sender stage_buffers 3 9
case_ "$banded" "{K: [16]}" dspmm.cuda.sender spmm_alg csr_alg2 csr_alg9
case_ "$lap" "{nrhs: [1]}" sptrsv.cuda.distributed transport ipc pigeon
case_ "$lap" "{nrhs: [1]}" sptrsv.cuda.supernodal backoff_ns 128 -3
case_ "$dense" "{N: [256]}" gemm.cuda.tiled gpu_map physical sideways
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe n_buffers 2 9
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe stage_split 4 5
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe vector 1 7
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe skew 1 2
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe swizzle 1 2
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe tile_interleave 1 2
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe warp_rows 16 3
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe lane_values 4 3
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe register_tile 128 129
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe nnz_order banks rows
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_pipe cluster 4 3
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_tma producer 0 2
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_tma n_buffers 4 5
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_tma merge_runs 1 2
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_tma skew 1 3
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_tma c_store bulk tma
case_ "$banded" "{K: [16]}" spmm.cuda.tiled_tma register_tile 128 129
dnn='{name: n, generator: sparse_dnn, neurons: 1024, seed: 1}'
case_ "$dnn" "{layers: [2], features: [64]}" spdnn.cuda.fused nnz_unroll 4 3
case_ "$dnn" "{layers: [2], features: [64]}" spdnn.cuda.fused stage_layout slot row
case_ "$dnn" "{layers: [2], features: [64]}" spdnn.cuda.fused nnz_order banks banked
case_ "$dnn" "{layers: [2], features: [64]}" spdnn.cuda.fused stage_layout slot_xor xor
case_ "$dnn" "{layers: [2], features: [64]}" spdnn.cuda.fused n_buffers 2 4
case_ "$cube" "{solver: [lobpcg]}" eigen.cpu.lobpcg schedule dag graphz
case_ "$cube" "{solver: [spmm]}" eigen.cuda.spmm_ooc streams 2 3
case_ "$cube" "{solver: [spmm]}" eigen.cuda.spmm_ooc mode ooc outofcore
echo "trust.new_params: ok ($n parameters refuse garbage)"
