# cli.harden_limits (issue 37, item 7): every numeric option has a range and a message naming it;
# nothing overflows into a silent wrong number. replay's --repeats, --budget, --seed and
# --stop-within; validate on a space whose size overflows 64 bits (refused, never a negative
# count); a sparse 32-parameter Kernel Tuner cache whose grid exceeds what a search addresses
# (refused naming the file).
. "$2/lib.sh"
cp "$HERE/../fuzz/corpus/recorded/kt.json" "$WORK/k.json"
expect 2 "rooftune replay: --repeats expects an integer from 1 to 10000, got '1000000000'" \
  timeout 20 "$RT" replay "$WORK/k.json" --repeats 1000000000
expect 2 "--budget expects an integer from 1 to 1000000000, got '99999999999999999999'" \
  "$RT" replay "$WORK/k.json" --budget 99999999999999999999
expect 2 "--budget expects an integer from 1 to 1000000000, got '-5'" "$RT" replay "$WORK/k.json" --budget 10,-5
expect 2 "--budget lists more than 16 budgets" "$RT" replay "$WORK/k.json" --budget 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17
expect 2 "--seed expects an integer from 0 to 4611686018427387904, got '-1'" "$RT" replay "$WORK/k.json" --seed -1
expect 2 "--stop-within expects a fraction above 0 and at most 100" \
  "$RT" replay "$WORK/k.json" --prune bound --stop-within nan
expect 2 "--rows expects a positive number up to 1e18, got 'inf'" "$RT" best --db x --kernel k --rows inf
expect 2 "--max-points expects an integer from 1 to 1000000000, got '99999999999'" \
  "$RT" run "$HERE/small.yaml" --max-points 99999999999
# five parameters of 2^16 values each: 2^80 combinations
expect 2 "the parameter space of kernel dspmm.cpu.sender has more than 10000000 points" \
  "$RT" validate "$HERE/small.yaml" --set 'problem.layout=[row]' --set 'kernels=[{name: dspmm.cpu.sender, params: {p_batch: {range: [1, 65536]}, minibatch: {range: [1, 65536]}, stages: {range: [1, 65536]}, threads: {range: [1, 1024]}, fail_rank: {range: [0, 65535]}}}]'
grep -qE -- "-[0-9]{6,}" "$WORK/out.txt" && fail "a negative count was printed: $(cat "$WORK/out.txt")"
# 32 parameters of 3 values each (3^32 > 2^30), 5 configurations recorded
python3 - "$WORK/sparse.json" <<'PY'
import json, sys
keys = ["p%d" % i for i in range(32)]
cache = {}
for c in range(5):
    cfg = {k: (c + i) % 3 for i, k in enumerate(keys)}
    cfg["time"] = 1.0 + c
    cache[",".join(str(cfg[k]) for k in keys)] = cfg
json.dump({"tune_params_keys": keys, "tune_params": {k: [0, 1, 2] for k in keys},
           "objective": "time", "cache": cache}, open(sys.argv[1], "w"))
PY
expect 2 "sparse.json: the recorded space's grid \(the product of its 32 parameters' value counts\) has more than 1073741824 points" \
  "$RT" replay "$WORK/sparse.json"
echo "cli.harden_limits: ok"
