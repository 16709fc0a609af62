# rooftune compare on real stores of the tiny experiment, modified with sqlite3. Run with a case:
#   self, slower, noise, metric, wrong, one_sided, unsure, noisy, history, bad_input
source "$(dirname "$0")/lib.sh"
CASE=$5
base="$WORK/base.db"
make_db "$base"
new="$WORK/new.db"
copy_db "$base" "$new"
points=$(sql "$base" "SELECT COUNT(*) FROM points")
[ "$points" = 6 ] || fail "the tiny experiment has $points points, want 6"

# The point whose samples spread least (max/min), made stable (calm_point): a 30% change of it is
# then unmistakable whatever the machine's noise did to the others.
tightest=$(sql "$base" "SELECT point_id FROM samples GROUP BY point_id
                        ORDER BY MAX(seconds) / MIN(seconds), point_id LIMIT 1")
calm_point "$base" "$tightest"
copy_db "$base" "$new"

case "$CASE" in
self)
  expect_exit 0 "$RT" compare "$base" "$base" --markdown "$WORK/self.md"
  grep -q "matched 6 point(s): 6 same, 0 faster, 0 slower, 0 unsure" <<<"$OUT" ||
    fail "a store against itself is not all SAME: $OUT"
  grep -q "^verdict: PASS" <<<"$OUT" || fail "no PASS verdict: $OUT"
  grep -q "verdict: PASS" "$WORK/self.md" || fail "Markdown lacks the verdict"
  [ "$(grep -c '| SAME |' "$WORK/self.md")" = 6 ] || fail "Markdown does not list 6 SAME points"
  # A copy is the same store to compare.
  expect_exit 0 "$RT" compare "$base" "$new"
  ;;
slower)
  sql "$new" "UPDATE samples SET seconds = seconds * 1.3 WHERE point_id = $tightest"
  expect_exit 1 "$RT" compare "$base" "$new" --markdown "$WORK/slow.md"
  grep -q "1 slower" <<<"$OUT" || fail "30% slower not reported: $OUT"
  echo "$OUT" | grep -E "^SLOWER .*\+30\.0%" >/dev/null || fail "no SLOWER +30.0% line: $OUT"
  grep -q "^verdict: FAIL (1 slower beyond 5%)" <<<"$OUT" || fail "no FAIL verdict: $OUT"
  grep -q '\*\*SLOWER\*\*' "$WORK/slow.md" || fail "Markdown does not mark the SLOWER point"
  # Informational timings (CPU-only runners) report it without failing.
  expect_exit 0 "$RT" compare "$base" "$new" --timings-informational
  grep -q "^SLOWER" <<<"$OUT" || fail "informational run hides the slowdown: $OUT"
  # A 40% threshold does not call 30% a slowdown.
  expect_exit 0 "$RT" compare "$base" "$new" --threshold 0.4
  # The reverse direction is FASTER, which never fails.
  expect_exit 0 "$RT" compare "$new" "$base"
  grep -q "1 faster" <<<"$OUT" || fail "reverse comparison not FASTER: $OUT"
  ;;
noise)
  # Every sample 1% slower, with +-2% deterministic noise per repetition.
  sql "$new" "UPDATE samples SET seconds = seconds * 1.01 * (1 + ((rep * 7919) % 41 - 20) / 1000.0)"
  expect_exit 0 "$RT" compare "$base" "$new"
  grep -q " 0 slower" <<<"$OUT" || fail "1% with noise called SLOWER: $OUT"
  grep -q "^verdict: PASS" <<<"$OUT" || fail "1% with noise failed: $OUT"
  ;;
metric)
  read -r pid name < <(sql "$base" "SELECT point_id || ' ' || name FROM metrics
                                    WHERE deterministic = 1 AND available = 1
                                    ORDER BY point_id, name LIMIT 1")
  sql "$new" "UPDATE metrics SET value = value + 1 WHERE point_id = $pid AND name = '$name'"
  expect_exit 1 "$RT" compare "$base" "$new" --timings-informational
  echo "$OUT" | grep -E "^METRIC .* $name value changed" >/dev/null ||
    fail "changed deterministic metric $name not reported: $OUT"
  grep -q "1 point(s) with changed deterministic metrics" <<<"$OUT" || fail "$OUT"
  # A non-deterministic metric may change freely.
  copy_db "$base" "$new"
  nd=$(sql "$base" "SELECT COUNT(*) FROM metrics WHERE deterministic = 0 AND available = 1")
  [ "$nd" -gt 0 ] || fail "the tiny experiment has no non-deterministic metric to vary"
  sql "$new" "UPDATE metrics SET value = value * 2 + 1 WHERE deterministic = 0"
  expect_exit 0 "$RT" compare "$base" "$new"
  # A deterministic metric that disappeared is a change too.
  sql "$new" "DELETE FROM metrics WHERE point_id = $pid AND name = '$name'"
  expect_exit 1 "$RT" compare "$base" "$new"
  grep -q "$name missing in the new store" <<<"$OUT" || fail "missing metric not reported: $OUT"
  ;;
wrong)
  sql "$new" "UPDATE points SET status = 'wrong', verified = 0 WHERE id = $tightest;
              DELETE FROM samples WHERE point_id = $tightest"
  expect_exit 1 "$RT" compare "$base" "$new" --timings-informational
  grep -q "status ok -> wrong (failure)" <<<"$OUT" || fail "newly wrong point not reported: $OUT"
  # The other way round (wrong -> ok) is a fix, not a failure.
  expect_exit 0 "$RT" compare "$new" "$base"
  grep -q "status wrong -> ok" <<<"$OUT" || fail "fixed point not listed: $OUT"
  ;;
one_sided)
  sql "$new" "DELETE FROM points WHERE id = $tightest"
  sql "$new" "UPDATE points SET matrix = 'renamed' WHERE id = (SELECT MAX(id) FROM points)"
  expect_exit 0 "$RT" compare "$base" "$new"
  [ "$(echo "$OUT" | grep -c "^ONLY ")" = 3 ] || fail "want 3 one-sided points listed: $OUT"
  grep -q "only in $base: 2; only in $new: 1" <<<"$OUT" || fail "$OUT"
  # Another device class matches nothing, unless devices are ignored.
  copy_db "$base" "$new"
  sql "$new" "UPDATE points SET device = 'Some Other CPU 9000'"
  # Even 2x slower: a gate that matched nothing compared nothing, and fails unless asked to pass.
  sql "$new" "UPDATE samples SET seconds = seconds * 2"
  expect_exit 1 "$RT" compare "$base" "$new"
  grep -q "matched 0 point(s)" <<<"$OUT" || fail "points of another device matched: $OUT"
  grep -q "^verdict: FAIL (no point matched" <<<"$OUT" || fail "nothing matched passed: $OUT"
  expect_exit 0 "$RT" compare "$base" "$new" --allow-no-match
  copy_db "$base" "$new"
  sql "$new" "UPDATE points SET device = 'Some Other CPU 9000'"
  expect_exit 0 "$RT" compare "$base" "$new" --ignore-device
  grep -q "matched 6 point(s)" <<<"$OUT" || fail "--ignore-device did not match: $OUT"
  # A serial-number suffix is not another device.
  sql "$new" "UPDATE points SET device = (SELECT device FROM runs LIMIT 1) || ' (GPU-0a1b2c3d-aaaa-bbbb-cccc-0123456789ab)'"
  expect_exit 0 "$RT" compare "$base" "$new"
  grep -q "matched 6 point(s)" <<<"$OUT" || fail "a serial suffix split the device class: $OUT"
  # --experiment selects; an experiment neither store has is an error.
  expect_exit 0 "$RT" compare "$base" "$new" --experiment regress-tiny --ignore-device
  expect_exit 2 "$RT" compare "$base" "$new" --experiment nope
  grep -q "experiment 'nope'" <<<"$OUT" || fail "$OUT"
  ;;
unsure)
  # 30% slower, but only 2 samples left on the new side: the U test cannot confirm it (UNSURE),
  # and an unconfirmed change past the threshold must not pass silently.
  sql "$new" "UPDATE samples SET seconds = seconds * 1.3 WHERE point_id = $tightest;
              DELETE FROM samples WHERE point_id = $tightest AND rep >= 2"
  expect_exit 1 "$RT" compare "$base" "$new"
  echo "$OUT" | grep -E "^UNSURE .*\(\+[23][0-9]\.[0-9]%" >/dev/null || fail "no UNSURE line: $OUT"
  grep -q "^verdict: FAIL (1 unsure past +5%" <<<"$OUT" || fail "UNSURE past 5% passed: $OUT"
  expect_exit 0 "$RT" compare "$base" "$new" --allow-unsure
  expect_exit 0 "$RT" compare "$base" "$new" --timings-informational
  # The faster direction never fails.
  expect_exit 0 "$RT" compare "$new" "$base"
  ;;
noisy)
  # A clear 30% slowdown, but the new point missed its confidence target (metric noisy = 1, as
  # the runner records it): UNSURE, not SLOWER, and still no silent pass.
  sql "$new" "UPDATE samples SET seconds = seconds * 1.3 WHERE point_id = $tightest;
              INSERT INTO metrics (point_id, name, unit, available, deterministic, value)
              VALUES ($tightest, 'noisy', '', 1, 0, 1)"
  expect_exit 1 "$RT" compare "$base" "$new"
  grep -q " 0 slower, 1 unsure" <<<"$OUT" || fail "a noisy point was called SLOWER: $OUT"
  grep -q "^noisy: 1 matched point" <<<"$OUT" || fail "noisy point not counted: $OUT"
  expect_exit 0 "$RT" compare "$base" "$new" --allow-unsure
  ;;
history)
  # Four stores: the same twice, then the tightest point 30% slower in the last two.
  h1="$WORK/h1.db"; h2="$WORK/h2.db"; h3="$WORK/h3.db"; h4="$WORK/h4.db"
  copy_db "$base" "$h1"; copy_db "$base" "$h2"; copy_db "$base" "$h3"; copy_db "$base" "$h4"
  sql "$h2" "UPDATE samples SET seconds = seconds * (1 + ((rep * 7919) % 41 - 20) / 1000.0)"
  sql "$h3" "UPDATE samples SET seconds = seconds * 1.3 WHERE point_id = $tightest"
  sql "$h4" "UPDATE samples SET seconds = seconds * 1.3 * (1 + ((rep * 31) % 21 - 10) / 1000.0)
             WHERE point_id = $tightest"
  expect_exit 1 "$RT" compare --history "$h1" "$h2" "$h3" "$h4" --markdown "$WORK/h.md"
  grep -q "1 change point(s), 1 of them slowdowns" <<<"$OUT" || fail "$OUT"
  echo "$OUT" | grep -E "^SLOWER .* between \[1\] .*h2\.db and \[2\] .*h3\.db" >/dev/null ||
    fail "the step between h2 and h3 not found: $OUT"
  grep -q "1 change point(s), 1 slowdown(s)" "$WORK/h.md" || fail "Markdown lacks the change"
  # No step: no change point, exit 0.
  expect_exit 0 "$RT" compare --history "$h1" "$h2" "$h1"
  grep -q "0 change point(s)" <<<"$OUT" || fail "$OUT"
  expect_exit 2 "$RT" compare --history "$h1"
  ;;
bad_input)
  expect_exit 2 "$RT" compare "$base"
  expect_exit 2 "$RT" compare "$base" "$WORK/missing.db"
  grep -q "missing.db" <<<"$OUT" || fail "missing store not named: $OUT"
  echo "not a database" >"$WORK/text.db"
  expect_exit 2 "$RT" compare "$base" "$WORK/text.db"
  grep -q "text.db" <<<"$OUT" || fail "non-store not named: $OUT"
  sqlite3 "$WORK/other.db" "CREATE TABLE t (x); INSERT INTO t VALUES (1);"
  expect_exit 2 "$RT" compare "$WORK/other.db" "$base"
  grep -q "other.db" <<<"$OUT" || fail "foreign database not named: $OUT"
  expect_exit 2 "$RT" compare "$base" "$new" --threshold 1.5
  grep -q -- "--threshold expects a number between 0 and 1" <<<"$OUT" || fail "$OUT"
  expect_exit 2 "$RT" compare "$base" "$new" --alpha abc
  expect_exit 2 "$RT" compare "$base" "$new" --bogus
  expect_exit 2 "$RT" compare "$base" "$new" --markdown "$WORK/no/such/dir/x.md"
  # Reading never leaves WAL side files beside a checkpointed store.
  [ ! -e "$base-wal" ] && [ ! -e "$base-shm" ] || fail "compare left -wal/-shm files"
  ;;
*) fail "unknown case '$CASE'" ;;
esac
echo "compare $CASE: ok"
