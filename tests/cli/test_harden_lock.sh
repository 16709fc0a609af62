# cli.harden_lock (issue 37, item 4): the store lock is held on the database file itself, so a
# second run into the same store through another name (a symbolic link, a hard link) stops at once
# while the first is running, and every point is stored once.
. "$2/lib.sh"
# A run of a few seconds: 8 points of at least 0.4 s of samples each.
csr_band_config "$WORK/slow.yaml" lock-test "16, 32, 64, 128, 256, 512, 1024, 2048" \
  "warmup: 1, min_reps: 1, max_reps: 1000000, max_time_s: 0.4, target_rel_ci: 0.000001"
ln -s s.db "$WORK/link.db"
"$RT" run "$WORK/slow.yaml" --db "$WORK/s.db" --quiet >"$WORK/a.log" 2>&1 &
first=$!
# wait until the first run is recording (its run row exists)
for _ in $(seq 1 100); do
  [ -s "$WORK/s.db" ] && [ "$(sql "$WORK/s.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" = 1 ] && break
  sleep 0.1
done
ln "$WORK/s.db" "$WORK/hard.db"
expect 3 "another rooftune run \(pid $first on [^)]*\) is writing to the store .*link.db \(or to the same file under another name\)" \
  "$RT" run "$WORK/slow.yaml" --db "$WORK/link.db" --quiet
expect 3 "another rooftune run \(pid $first on [^)]*\) is writing to the store .*hard.db" \
  "$RT" run "$WORK/slow.yaml" --db "$WORK/hard.db" --quiet
kill -0 "$first" 2>/dev/null || fail "the first run ended before the second was tried: the test proves nothing"
wait "$first" || fail "the first run failed: $(tail -3 "$WORK/a.log")"
[ "$(sql "$WORK/s.db" "SELECT count(*) FROM runs")" = 1 ] || fail "the refused runs started runs"
[ "$(sql "$WORK/s.db" "SELECT count(*) FROM points")" = 8 ] || fail "points stored: $(sql "$WORK/s.db" "SELECT count(*) FROM points")"
[ "$(sql "$WORK/s.db" "SELECT count(DISTINCT point_key) FROM points")" = 8 ] || fail "a point was stored twice"
[ ! -e "$WORK/s.db.lock" ] || fail "a lock file was made beside the store"
echo "cli.harden_lock: ok"
