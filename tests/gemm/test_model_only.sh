# `rooftune run --model-only` for the gemm family: configs/ci/gemm-small.yaml's points planned
# for 1 and 6 virtual ranks (nothing runs) against the cases docs/families/gemm.md computes by hand
# (12 x 12 x 12 tiles, b = c = d = 2, lookahead 0: 1152 tiles per GPU with a 40-tile budget,
# 1008 with two GPUs of which 432 device to device; 168 tiles received by every process of a
# 2 x 3 grid), then the paper's scale (144 ranks, 3 GPUs each) in seconds.
# Then configs/tune/gemm-tail.yaml's splits on one process (the one-GPU budget, a share of a
# device the model does not have, given as 120 GB): the tail and the host loads per GPU its header
# states.
# Args: rooftune, scratch folder, small config, paper model config, machine file, tail config.
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT WORK SMALL PAPER MACHINE TAIL -- "$@"
rm -rf "$WORK" && mkdir -p "$WORK/np1" "$WORK/np6" "$WORK/paper" "$WORK/tail"
"$RT" run "$SMALL" --model-only --ranks 1 --out "$WORK/np1" >"$WORK/np1.log" 2>&1 ||
  fail "model-only on 1 rank: $(tail -3 "$WORK/np1.log")"
"$RT" run "$SMALL" --model-only --ranks 6 --ranks-per-node 2 --out "$WORK/np6" >"$WORK/np6.log" 2>&1 ||
  fail "model-only on 6 ranks: $(tail -3 "$WORK/np6.log")"
"$RT" run "$PAPER" --model-only --ranks 144 --ranks-per-node 2 --ranks-per-socket 1 \
  --machine "$MACHINE" --out "$WORK/paper" >"$WORK/paper.log" 2>&1 ||
  fail "model-only at the paper's scale: $(tail -3 "$WORK/paper.log")"
"$RT" run "$TAIL" --model-only --ranks 1 --set "kernels.1.params.gpu_mem_budget=[120000000000]" \
  --out "$WORK/tail" >"$WORK/tail.log" 2>&1 || fail "model-only of the tail config: $(tail -3 "$WORK/tail.log")"
python3 - "$WORK" <<'PY'
import csv, sys
work = sys.argv[1]
def rows(sub, name):
    with open(f"{work}/{sub}/{name}-model.csv", newline="") as f:
        return list(csv.DictReader(f))
def pick(rs, **kw):
    out = [r for r in rs if all(r[k] == str(v) for k, v in kw.items())]
    if len(out) != 1:
        sys.exit(f"FAIL: {len(out)} rows for {kw}")
    return out[0]
one = rows("np1", "gemm-small")
if any(r["kernel"] != "gemm.cpu.tiled" for r in one):
    sys.exit("FAIL: a baseline was modelled")
r = pick(one, t=4, gpus_per_process=1, block_b=2, chunk_d=2, lookahead=0, budget_tiles=40)
if (r["status"], r["mem_case"], float(r["tiles_gpu_avg"])) != ("ok", "b", 1152.0):
    sys.exit(f"FAIL: 40-tile budget, one GPU: {r['status']} case {r['mem_case']} {r['tiles_gpu_avg']} tiles (1152 by hand)")
r = pick(one, t=4, gpus_per_process=2, block_b=2, chunk_d=2, lookahead=0, budget_tiles=40)
if (float(r["tiles_gpu_avg"]), float(r["tiles_d2d_gpu_avg"])) != (1008.0, 432.0):
    sys.exit(f"FAIL: two GPUs: {r['tiles_gpu_avg']} tiles per GPU, {r['tiles_d2d_gpu_avg']} d2d (1008, 432 by hand)")
bad = [r for r in one if r["status"] != "ok"]
# As the measured runs record them: 14 tiles are too few for l = 1, 2 on one GPU and l = 2 on two;
# 40 too few for b = c = 4 on one GPU (the three tail splits).
if len(bad) != 6 or any("gpu_mem_budget of 14 tiles is too small" not in r["reason"] and
                        "gpu_mem_budget of 40 tiles is too small" not in r["reason"] for r in bad):
    sys.exit(f"FAIL: {len(bad)} rows not ok; expected the 6 points of the 14- and 40-tile budgets, infeasible with the reason")
# The tail split in case (c) (b = c = 4, 56 tiles, one GPU; docs/families/gemm.md): the tail falls
# from 16 C tiles to 8 and 4 while B is loaded 3, 4, 6 times per block column (432, 576, 864).
for split, tail, loads in ((1, 16, 432 + 432), (2, 8, 432 + 576), (4, 4, 432 + 864)):
    r = pick(one, t=4, gpus_per_process=1, block_b=4, budget_tiles=56, tail_split=split)
    got = (r["mem_case"], float(r["tail_tiles_gpu_max"]), float(r["tiles_h2d_gpu_avg"]))
    if got != ("c", tail, loads) or float(r["tail_bytes_gpu_max"]) != tail * 128:
        sys.exit(f"FAIL: split {split}: case, tail, host loads {got} ({tail}, {loads} by hand)")
six = rows("np6", "gemm-small")
r = pick(six, t=4, gpus_per_process=1, block_b=2, chunk_d=2, lookahead=0, budget_tiles=1000)
if (r["grid_p"], r["grid_q"], float(r["mpi_tiles_recv_avg"]), float(r["mpi_tiles_recv_max"])) != ("2", "3", 168.0, 168.0):
    sys.exit(f"FAIL: 2 x 3 grid: {r['grid_p']} x {r['grid_q']}, {r['mpi_tiles_recv_avg']} tiles received (168 by hand)")
if abs(float(r["ratio_tiles_gpu_eq1"]) - 1) > 1e-12 or abs(float(r["model_eq_tiles_recv"]) - 168) > 1e-9:
    sys.exit("FAIL: 2 x 3 grid off Eq. (1) or the volume formula where the tiles divide")
# 3 emulated nodes of 2 ranks, one socket each: within a node is the socket tier.
if float(r["bytes_socket_max"]) <= 0 or float(r["bytes_node_max"]) != 0 or float(r["bytes_global_max"]) <= 0:
    sys.exit(f"FAIL: tiers of 3 nodes x 2 ranks: {r['bytes_socket_max']} {r['bytes_node_max']} {r['bytes_global_max']} bytes")
paper = rows("paper", "gemm-model")
ok = [r for r in paper if r["status"] == "ok" and r["grid_p"] == "12" and r["grid_q"] == "12" and r["gpus_per_process"] == "3"]
if len(ok) < 4 or any(float(r["time_global_s"]) <= 0 for r in ok):
    sys.exit(f"FAIL: {len(ok)} points on the paper's 12 x 12 x 3 GPUs with times")
# The row docs/families/gemm.md quotes (N = 250000 at 432 GPUs), so the page stays true to the model.
doc = [r for r in ok if r["N"] == "250000"]
if not doc:
    sys.exit("FAIL: no N = 250000 row at 432 GPUs")
d = doc[0]
got = (d["block_b"], d["block_c"], d["chunk_d"], d["mem_case"], round(float(d["tiles_gpu_avg"])),
       round(float(d["model_eq1_tiles_gpu"])), f"{float(d['share_d2d_loads']):.3f}",
       round(float(d["mpi_tiles_recv_avg"])), round(float(d["model_eq_tiles_recv"])))
if got != ("21", "21", "7", "c", 6808, 6623, "0.500", 9170, 8916):
    sys.exit(f"FAIL: the N = 250000 row docs/families/gemm.md quotes is now {got}")
# The tail config's header: N = 32768 on 2 GPUs at 8 GiB (case (c)) loads 64, 96, 160, 288 tiles
# per GPU from the host for a tail of 32, 16, 8, 4 C tiles (s = 1, 2, 4, 8); one GPU with
# everything fitting (case (a)) loads 128 whatever s, its tail 64 / s; 16384 on 2 GPUs fits.
tail = rows("tail", "gemm-tail")
for g, case, loads, tail0 in ((2, "c", {1: 64, 2: 96, 4: 160, 8: 288}, 32), (1, "a", None, 64)):
    for s in (1, 2, 4, 8):
        r = pick(tail, N=32768, gpus_per_process=g, tail_split=s)
        want = (case, float(loads[s] if loads else 128), float(tail0 // s))
        got = (r["mem_case"], float(r["tiles_h2d_gpu_avg"]), float(r["tail_tiles_gpu_max"]))
        if got != want:
            sys.exit(f"FAIL: gemm-tail N = 32768, {g} GPU(s), split {s}: {got}, the header says {want}")
r = pick(tail, N=16384, gpus_per_process=2, tail_split=4)
if (r["mem_case"], float(r["tiles_h2d_gpu_avg"]), float(r["tail_tiles_gpu_max"])) != ("a", 16.0, 2.0):
    sys.exit(f"FAIL: gemm-tail N = 16384 on 2 GPUs, split 4: case {r['mem_case']}, {r['tiles_h2d_gpu_avg']} loads, tail {r['tail_tiles_gpu_max']}")
print(f"gemm model-only: {len(one)} + {len(six)} small rows, {len(ok)} at 432 GPUs, {len(tail)} tail rows")
PY
