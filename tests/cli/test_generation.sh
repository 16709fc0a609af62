# Tuned per GPU generation (issue 35, item 4) without a GPU: every tuning config validates (the
# generation configs among them, exhaustive so --parallel gpus can run them), and
# ci/gpu-tune-generation.sh's own logic on CPU configs and 2 CPU workers: round one (tune, best,
# portconfig, table) as the first GPU runs it, round two as a second device given the first one's
# tuning database and store (merge, port of a config written elsewhere, the two-way table), and
# garbage as TUNED_OTHER and PORT_CONFIG; $OUT never holds more than 8 files.
source "$(dirname "$0")/lib.sh"
export OMP_NUM_THREADS=1
ROOT="$HERE/../.."
for c in "$ROOT"/configs/tune/*.yaml; do
  "$RT" validate "$c" >"$WORK/validate.out" 2>&1 || fail "$c does not validate: $(tail -5 "$WORK/validate.out")"
done
for f in tiled spdnn gemm; do
  c="$ROOT/configs/tune/generation-$f.yaml"
  [ -f "$c" ] || fail "no $c"
  grep -q "^search: {strategy: exhaustive}" "$c" || fail "$c: not exhaustive (--parallel gpus needs an order that ignores results)"
done

# Two CPU "families": two configs, each with its own kernel.
csr_band_config "$WORK/gen-csr.yaml" gen-csr "16, 64, 256" \
  "warmup: 1, min_reps: 3, max_reps: 4, max_time_s: 0.05, target_rel_ci: 0.5"
echo "search: {strategy: exhaustive}" >>"$WORK/gen-csr.yaml"
# (two precisions: two entries of the same input features, which best cannot tell apart)
sed -e 's/gen-csr/gen-ell/' -e 's/spmm.cpu.csr/spmm.cpu.ell/' -e 's/precision: \[fp64\]/precision: [fp32, fp64]/' \
  "$WORK/gen-csr.yaml" >"$WORK/gen-ell.yaml"
script() { # OUT STAGES... (the environment as the caller sets it)
  local o=$1
  shift
  OUT="$o" ROOFTUNE_BIN="$RT" ROOFTUNE_GEN_CONFIGS="$WORK/gen-csr.yaml $WORK/gen-ell.yaml" ROOFTUNE_GPUS=2 \
    ROOFTUNE_DEVICE_NAME="NVIDIA H200" ROOFTUNE_GEN_WORK="$o-work" bash "$ROOT/ci/gpu-tune-generation.sh" "$@"
}
at_most_8() { # OUT: the device tool brings back 8 files
  local n
  n=$(find "$1" -type f | wc -l)
  [ "$n" -le 8 ] || fail "$n files under $1: $(ls "$1")"
}

# Round one: the first device.
o="$WORK/h200"
script "$o" tune best portconfig table >"$WORK/r1.log" 2>&1 || fail "round one: $(tail -20 "$WORK/r1.log")"
s="$o/gen-h200.txt"
for want in "^generation on NVIDIA H200 (h200), 2 GPU(s)" "^tune gen-csr: exit 0" "^tune gen-ell: exit 0" \
  "^  summary: 3 point(s): 3 measured" "^  summary: 6 point(s): 6 measured" \
  "^  tuning database .*tuned-h200.db: 1 entry added" "^  tuning database .*tuned-h200.db: 2 entries added" \
  "^best: 3 entr(ies) of .* asked, 3 answered by this device (matched: device), 2 of them sharing" \
  "^  spmm.cpu.csr on NVIDIA H100 80GB HBM3: matched:" "^  spmm.cpu.ell on NVIDIA H100 80GB HBM3: matched:" \
  "^export: exit 0" "^portconfig gen-csr: exit 0" "^  wrote .*port-h200-gen-csr.yaml: 1 configuration" \
  "^table: exit 0" "^| tuned on"; do
  grep -q -- "$want" "$s" || fail "round one: no '$want' in the summary: $(cat "$s")"
done
[ "$(sql "$o/gen-h200.db" "SELECT COUNT(*) FROM points WHERE status = 'ok'")" = 9 ] || fail "round one: the gen store"
[ "$(sql "$o/tuned-h200.db" "SELECT COUNT(*) FROM tuning")" = 3 ] || fail "round one: the tuning database"
[ "$(sql "$o/gen-h200.db" "SELECT COUNT(*) FROM phases WHERE process LIKE 'worker %' AND phase = 'start'")" = 4 ] ||
  fail "round one: not 2 workers per tuning run"
mkdir -p "$WORK/tgz" && tar -xzf "$o/gen.tgz" -C "$WORK/tgz" || fail "gen.tgz"
for f in rooftune_tuned.h tuned.yaml port-h200-gen-csr.yaml port-h200-gen-ell.yaml best-answers.txt tune-gen-csr.log; do
  [ -s "$WORK/tgz/$f" ] || fail "gen.tgz has no $f: $(ls "$WORK/tgz")"
done
grep -q "name: spmm.cpu.csr" "$WORK/tgz/port-h200-gen-csr.yaml" && ! grep -q "spmm.cpu.ell" "$WORK/tgz/port-h200-gen-csr.yaml" ||
  fail "the csr config's portability config: $(cat "$WORK/tgz/port-h200-gen-csr.yaml")"
at_most_8 "$o"

# The other device: the same stores under another name, its best another configuration (this
# device's best made its slowest), tuned into its own database.
dev=$(sql "$o/gen-h200.db" "SELECT DISTINCT device FROM points")
other="Other CPU 64GB"
cp "$o/gen-h200.db" "$WORK/gen-other.db"
sql "$WORK/gen-other.db" "UPDATE points SET device = '$other';
  UPDATE points SET time_median_s = 1 WHERE id IN (SELECT p.id FROM points p JOIN (SELECT kernel k, problem q,
    MIN(time_median_s) t FROM points WHERE status = 'ok' GROUP BY kernel, problem) b
    ON p.kernel = b.k AND p.problem = b.q AND p.time_median_s = b.t)"
"$RT" tune --from "$WORK/gen-other.db" --tuning-db "$WORK/tuned-other.db" >/dev/null
# ... and a portability config written on another machine: its include names a path that is not here.
cp "$WORK/tgz/port-h200-gen-csr.yaml" "$WORK/port-elsewhere.yaml"
sed -i "s|^include: \".*\"\$|include: \"/elsewhere/checkout/configs/tune/gen-csr.yaml\"|" "$WORK/port-elsewhere.yaml"

# Round two: merge, the portability configs of both devices' tunings, the port run, the table.
TUNED_OTHER="$WORK/tuned-other.db" STORES_OTHER="$WORK/gen-other.db" script "$o" merge portconfig port table \
  >"$WORK/r2.log" 2>&1 || fail "round two: $(tail -20 "$WORK/r2.log")"
for want in "^  tuned-all.db: 3 entr(ies) of $other (cpu)" "^  tuned-all.db: 3 entr(ies) of $dev (cpu)" \
  "^  wrote .*port-h200-gen-csr.yaml: 2 configuration" "^port port-h200-gen-csr: exit 0" \
  "^port port-h200-gen-ell: exit 0" "^table: exit 0"; do
  grep -q -- "$want" "$s" || fail "round two: no '$want' in the summary: $(cat "$s")"
done
python3 - "$o/tuned-all.db" "$o/port-h200.db" <<'PY' || fail "round two: the port store lacks a tuned configuration"
import sqlite3, sys
tuned = sqlite3.connect(sys.argv[1]).execute("SELECT kernel, problem, params FROM tuning").fetchall()
port = set(sqlite3.connect(sys.argv[2]).execute(
    "SELECT kernel, problem, params FROM points WHERE status = 'ok' AND verified = 1").fetchall())
missing = [t for t in tuned if t not in port]
assert len(tuned) == 6 and not missing, missing
PY
python3 - "$o/portability-h200.md" "$dev" "$other" <<'PY' || fail "round two: the table: $(cat "$o/portability-h200.md")"
import sys
rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in open(sys.argv[1]) if l.startswith("| spmm")]
# 3 sweeps x 2 tuned-on devices x 2 run-on devices (this one from the port store, the other from its gen store)
assert len(rows) == 12, rows
pairs = {(r[3], r[4]) for r in rows}
assert pairs == {(a, b) for a in sys.argv[2:] for b in sys.argv[2:]}, pairs
for r in rows:
    if r[3] == r[4]:
        assert r[8] == "+0.0%", r
    else:
        assert r[8] != "-" and float(r[8].rstrip("%")) >= -100, r
print("table:", len(rows), "rows")
PY
at_most_8 "$o"
# The port stage with a config written elsewhere: its include pointed at the config of that name.
PORT_CONFIG="$WORK/port-elsewhere.yaml" script "$o" port >"$WORK/r3.log" 2>&1 || fail "a config from elsewhere: $(tail -5 "$WORK/r3.log")"
grep -q "^  port port-elsewhere: include /elsewhere/checkout/configs/tune/gen-csr.yaml -> $WORK/gen-csr.yaml" "$s" &&
  grep -q "^port port-elsewhere: exit 0" "$s" || fail "a config from elsewhere: $(tail -5 "$s")"

# Garbage: a tuning database that is none, a portability config that is none or includes a config
# this script does not tune: the step says so, and the script exits 1.
echo garbage >"$WORK/garbage.db"
echo "kernels: [" >"$WORK/garbage.yaml"
sed 's|^include: ".*"$|include: "/elsewhere/configs/unknown.yaml"|' "$WORK/port-elsewhere.yaml" >"$WORK/unknown.yaml"
rc=0; TUNED_OTHER="$WORK/garbage.db" script "$WORK/g1" merge >"$WORK/g1.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "^merge $WORK/garbage.db: exit 2" "$WORK/g1/gen-h200.txt" || fail "garbage TUNED_OTHER: exit $rc: $(cat "$WORK/g1.log")"
for bad in garbage unknown; do
  rc=0; PORT_CONFIG="$WORK/$bad.yaml" script "$WORK/g-$bad" port >"$WORK/g.log" 2>&1 || rc=$?
  [ "$rc" = 1 ] || fail "PORT_CONFIG $bad: exit $rc: $(cat "$WORK/g.log")"
done
grep -q "^port garbage: exit 2" "$WORK/g-garbage/gen-h200.txt" || fail "garbage PORT_CONFIG: $(cat "$WORK/g-garbage/gen-h200.txt")"
grep -q "^port unknown: it includes /elsewhere/configs/unknown.yaml, which is neither there nor one of" \
  "$WORK/g-unknown/gen-h200.txt" || fail "PORT_CONFIG of an unknown config: $(cat "$WORK/g-unknown/gen-h200.txt")"
rc=0; script "$WORK/g2" nonsense >"$WORK/g2.log" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "unknown stage nonsense" "$WORK/g2.log" || fail "an unknown stage: exit $rc"
echo "generation: ok"
