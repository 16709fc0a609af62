# tables.new_stores (issue 33, items 2 and 4): ci/new-families-tables.py on stores shaped like the
# ones the new baselines will write: spdnn.cuda.cusparse with a `layout` parameter (a row-major
# CSR_ALG3 point beside the column-major ones), several cublasDgemm math modes and cublasXt block
# dimensions. The sparse-DNN bar gets a row-major row and the best of either layout names its
# layout; a point with enough samples feeds a ratio, a point with none is marked and feeds none.
#   $1 = repository root, $2 = scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args ROOT WORK -- "$@"
rt_scratch "$WORK" h100
cp "$ROOT"/results/baselines/h100/*.db "$WORK/h100/"
COLS="run_id, experiment, kernel, backend, family, matrix, params, problem, ranks, device, point_key, status,
      verified, time_median_s, gflops, flops, measured_at"
# A row-major CSR_ALG3 cuSPARSE layer 6 times faster than CSR_ALG1, with 6 samples; the other
# cuSPARSE points get layout col.
sqlite3 "$WORK/h100/spdnn-inference.db" "
  INSERT INTO points ($COLS) SELECT run_id, experiment, kernel, backend, family, matrix,
    json_set(params, '\$.layout', 'row', '\$.alg', 'csr_alg3'), problem, ranks, device, point_key || 'r', status,
    verified, time_median_s / 6, gflops * 6, flops, measured_at
    FROM points WHERE kernel = 'spdnn.cuda.cusparse' AND json_extract(params, '\$.alg') = 'csr_alg1';
  INSERT INTO samples (point_id, rep, seconds) SELECT p.id, r.rep, p.time_median_s FROM points p,
    (SELECT 0 rep UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5) r
    WHERE json_extract(p.params, '\$.layout') = 'row';
  UPDATE points SET params = json_set(params, '\$.layout', 'col')
    WHERE kernel = 'spdnn.cuda.cusparse' AND json_extract(params, '\$.layout') IS NULL;"
# A pedantic cublasDgemm point and a cublasXt point at block 4096, without samples.
sqlite3 "$WORK/h100/gemm-tile-size.db" "
  INSERT INTO points ($COLS) SELECT run_id, experiment, kernel, backend, family, matrix,
    json_set(params, '\$.xt_block', 4096), problem, ranks, device, point_key || 'x', status, verified,
    time_median_s / 4, gflops * 4, flops, measured_at FROM points WHERE kernel = 'gemm.cuda.cublasxt';
  INSERT INTO points ($COLS) SELECT run_id, experiment, kernel, backend, family, matrix,
    json_set(params, '\$.math_mode', 'pedantic'), problem, ranks, device, point_key || 'p', status, verified,
    time_median_s * 1.1, gflops / 1.1, flops, measured_at FROM points WHERE kernel = 'gemm.cuda.cublas';"
python3 "$ROOT/ci/new-families-tables.py" "$WORK/h100" >"$WORK/tables.md" || fail "the generator failed"
has() { grep -qF -- "$1" "$WORK/tables.md" || fail "no '$1' in the tables"; }
# The row-major baseline: per layout and as the best of either layout, its ratio from 6 samples.
has "| dnn-1024 | row-major | csr_alg3 | 61.1 |"
has "| dnn-1024 | best of either layout | csr_alg3 (row-major) | 61.1 |"
grep -F "| dnn-1024 | row-major | csr_alg3 | 61.1 |" "$WORK/tables.md" | grep -qF "| 1.09x | not met |" ||
  fail "the row-major ratio or verdict is missing"
has "| dnn-1024 | column-major | default | 366.0 |"
# The library kernels' options, each point shown; the sampleless ones marked, no ratio from them.
has "| gemm.cuda.cublas | math_mode pedantic |  | 54.9 (0 samples) | not enough samples |"
has "| gemm.cuda.cublasxt | xt_block 4096 |  | 16.8 (0 samples) | not enough samples |"
has "| gemm.cuda.cublas | math_mode default |  | 60.4 | 100% |"
echo "tables.new_stores: ok"
