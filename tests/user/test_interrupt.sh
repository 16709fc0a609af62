#!/usr/bin/env bash
# A signal during a user C kernel's point (kernels/user: the kernel runs in a worker process of
# rooftune's process group, so a terminal's Ctrl-C reaches both):
#   A. SIGINT to the whole group, as a terminal sends it, while a point's worker sleeps: the run is
#      'interrupted', the points before it are kept, the one in flight is not recorded, and the
#      same command measures it (once, ok); no process of the group is left.
#   B. The same with --parallel gpus (CPU worker processes).
#   C. The compiler (cc) ended by the group's SIGINT while it builds a point's kernel: no point
#      and no cached build failure (the rerun builds and measures it).
#   D. Without an interrupt of the run, a worker ended by a signal from outside (SIGTERM, SIGKILL)
#      is an error point naming the signal, and the run goes on.
#   $1 rooftune  $2 the source tree  $3 a scratch folder
. "$(dirname "$0")/../rt_test_lib.sh"
rt_args RT SRC WORK -- "$@"
rt_scratch "$WORK"
set +e
export ROOFTUNE_CACHE_DIR=$WORK/cache
cp -r "$SRC/tests/user/nap" "$WORK/nap"
cd "$WORK/nap"
export NAP_MARK=$WORK/mark

# start LOG ARGS...: rooftune in a process group of its own (setsid: the test's shell is not in
# it), as a terminal's foreground job is; $pid is rooftune's and the group's id.
start() {
  local log=$1
  shift
  setsid "$RT" "$@" >"$log" 2>&1 &
  pid=$!
}
# await_file PATH: waits (at most 60 s) until PATH exists.
await_file() {
  for _ in $(seq 600); do
    [ -e "$1" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "rooftune ended before $1 appeared: $(tail -5 "$log")"
    sleep 0.1
  done
  fail "$1 did not appear within 60 s"
}
# finish WANT: waits for rooftune; its exit status must be WANT, and no process of its group may
# be left (the user workers included).
finish() {
  wait "$pid"
  local rc=$?
  [ "$rc" = "$1" ] || fail "exit $rc, $1 expected: $(tail -5 "$log")"
  sleep 0.2
  if pgrep -g "$pid" >/dev/null; then fail "a process of the run's group outlived it: $(pgrep -g "$pid" -a)"; fi
}
points() { sql "$1" "SELECT params || ' ' || status FROM points ORDER BY params"; }

# --- A. Serial: SIGINT to the group while NAP 1's worker sleeps. ---------------------------------
log=$WORK/a1.log
rm -f "$NAP_MARK".*
NAP_SECONDS=60 start "$log" run nap.yaml --db a.db
await_file "$NAP_MARK.1"
kill -INT -- -"$pid"
finish 3
grep -q "interrupted by SIGINT" "$log" || fail "A: no interrupt message: $(tail -3 "$log")"
rt_sql_is a.db interrupted "SELECT status FROM runs" || fail "A: the run is '$got', not 'interrupted'"
rt_sql_is a.db '{"NAP":0} ok' "SELECT params || ' ' || status FROM points" ||
  fail "A: the store holds '$got', only NAP 0 (ok) expected: the point in flight was recorded"
# The same command (no nap now) measures what the interrupt left, and only that.
"$RT" run nap.yaml --db a.db >"$WORK/a2.log" 2>&1 || fail "A: rerun: $(tail -5 "$WORK/a2.log")"
grep -q "1 resumed" "$WORK/a2.log" || fail "A: rerun did not resume NAP 0: $(grep summary "$WORK/a2.log")"
rt_sql_is a.db 3 "SELECT COUNT(DISTINCT point_key) FROM points WHERE status = 'ok' AND verified = 1" &&
  rt_sql_is a.db 3 "SELECT COUNT(*) FROM points" ||
  fail "A: after the rerun: $(points a.db | tr '\n' ';'), the three points once each, ok, expected"

# --- B. --parallel gpus, two CPU workers: SIGINT to the group while a point sleeps. -------------
log=$WORK/b1.log
rm -f "$NAP_MARK".*
NAP_SECONDS=60 start "$log" run nap.yaml --db b.db --parallel gpus --workers 2
for _ in $(seq 600); do
  ls "$NAP_MARK".* >/dev/null 2>&1 && break
  sleep 0.1
done
ls "$NAP_MARK".* >/dev/null 2>&1 || fail "B: no point began its nap: $(tail -5 "$log")"
kill -INT -- -"$pid"
finish 3
rt_sql_is b.db interrupted "SELECT status FROM runs" || fail "B: the run is '$got', not 'interrupted'"
rt_sql_is b.db 0 "SELECT COUNT(*) FROM points WHERE status != 'ok'" ||
  fail "B: the interrupted points were recorded: $(points b.db | tr '\n' ';')"
"$RT" run nap.yaml --db b.db --parallel gpus --workers 2 >"$WORK/b2.log" 2>&1 ||
  fail "B: rerun: $(tail -5 "$WORK/b2.log")"
rt_sql_is b.db 3 "SELECT COUNT(DISTINCT point_key) FROM points WHERE status = 'ok'" &&
  rt_sql_is b.db 3 "SELECT COUNT(*) FROM points" ||
  fail "B: after the rerun: $(points b.db | tr '\n' ';'), the three points once each, ok, expected"

# --- C. The compiler interrupted: a cc that naps while it builds NAP 2's object. ----------------
mkdir -p "$WORK/bin"
real_cc=$(command -v cc)
cat >"$WORK/bin/cc" <<EOF
#!/usr/bin/env bash
case "\$*" in
  *-DNAP=2*) if [ -n "\${CC_NAP:-}" ]; then touch "\$CC_NAP"; sleep 60; fi ;;
esac
exec "$real_cc" "\$@"
EOF
chmod +x "$WORK/bin/cc"
log=$WORK/c1.log
rm -f "$WORK/cc-naps"
rm -rf "$ROOFTUNE_CACHE_DIR"
PATH=$WORK/bin:$PATH CC_NAP=$WORK/cc-naps start "$log" run nap.yaml --db c.db
await_file "$WORK/cc-naps"
kill -INT -- -"$pid"
finish 3
rt_sql_is c.db interrupted "SELECT status FROM runs" || fail "C: the run is '$got', not 'interrupted'"
rt_sql_is c.db 0 "SELECT COUNT(*) FROM points WHERE params = '{\"NAP\":2}'" ||
  fail "C: the point whose build was interrupted was recorded: $(points c.db | tr '\n' ';')"
if ls "$ROOFTUNE_CACHE_DIR"/user-*.err >/dev/null 2>&1; then
  fail "C: the interrupted build was cached as a failure: $(ls "$ROOFTUNE_CACHE_DIR"/user-*.err)"
fi
PATH=$WORK/bin:$PATH "$RT" run nap.yaml --db c.db >"$WORK/c2.log" 2>&1 ||
  fail "C: rerun: $(tail -5 "$WORK/c2.log")"
rt_sql_is c.db 3 "SELECT COUNT(DISTINCT point_key) FROM points WHERE status = 'ok'" &&
  rt_sql_is c.db 3 "SELECT COUNT(*) FROM points" ||
  fail "C: after the rerun: $(points c.db | tr '\n' ';'), the three points once each, ok, expected"

# --- D. No interrupt: SIGTERM to NAP 1's worker alone, SIGKILL to NAP 2's: two error points. ---
log=$WORK/d1.log
rm -f "$NAP_MARK".*
NAP_SECONDS=60 start "$log" run nap.yaml --db d.db
for nap_sig in 1:TERM 2:KILL; do
  await_file "$NAP_MARK.${nap_sig%%:*}"
  worker=$(pgrep -P "$pid" -f rooftune-user-worker)
  [ -n "$worker" ] || fail "D: no worker process under rooftune"
  kill -"${nap_sig#*:}" "$worker"
done
finish 1
rt_sql_is d.db complete "SELECT status FROM runs" || fail "D: the run is '$got', not 'complete'"
rt_sql_has d.db "SELECT status || ' ' || reason FROM points WHERE params = '{\"NAP\":1}'" \
  "^error .*killed by signal 15" || fail "D: SIGTERM to the worker alone: '$got'"
rt_sql_has d.db "SELECT status || ' ' || reason FROM points WHERE params = '{\"NAP\":2}'" \
  "^error .*killed by signal 9" || fail "D: SIGKILL to the worker: '$got'"
rt_sql_is d.db ok "SELECT status FROM points WHERE params = '{\"NAP\":0}'" || fail "D: NAP 0 is '$got'"
echo "user.interrupt: ok"
