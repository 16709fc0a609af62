# cli.readonly_cmds (issue 13, item 14): `export` and `plot` open a store read-only the way the
# report does: a committed store (WAL mode, not being written) is left without -wal/-shm files
# beside it, and a store of another schema version is refused with the versions named.
. "$2/lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
cp "$ROOT/results/baselines/h100/register-tiling.db" "$WORK/s.db"
# Committed stores are in either journal mode; the copy is put in WAL mode, the case that leaves
# -wal/-shm files behind a careless reader.
sql "$WORK/s.db" "PRAGMA journal_mode = WAL" >/dev/null
[ "$(sql "$WORK/s.db" "PRAGMA journal_mode")" = wal ] || fail "the copied store is not in WAL mode"
rm -f "$WORK/s.db-wal" "$WORK/s.db-shm"
"$RT" export --db "$WORK/s.db" --format csv --out "$WORK/p.csv" >"$WORK/e.log" 2>&1 || fail "export: $(cat "$WORK/e.log")"
[ -s "$WORK/p.csv" ] || fail "export wrote nothing"
[ ! -e "$WORK/s.db-wal" ] && [ ! -e "$WORK/s.db-shm" ] || fail "export left $(ls "$WORK" | grep -E 'wal|shm' | tr '\n' ' ')"
"$RT" plot --db "$WORK/s.db" --out "$WORK/figs" >"$WORK/p.log" 2>&1 || fail "plot: $(tail -3 "$WORK/p.log")"
[ ! -e "$WORK/s.db-wal" ] && [ ! -e "$WORK/s.db-shm" ] || fail "plot left $(ls "$WORK" | grep -E 'wal|shm' | tr '\n' ' ')"
# Another schema version: refused by both.
cp "$WORK/s.db" "$WORK/v.db"
sql "$WORK/v.db" "PRAGMA journal_mode = DELETE; PRAGMA user_version = 999" >/dev/null
for cmd in "export --db $WORK/v.db --format csv" "plot --db $WORK/v.db --out $WORK/vfigs"; do
  set +e
  # shellcheck disable=SC2086
  "$RT" $cmd >"$WORK/v.log" 2>&1
  r=$?
  set -e
  [ "$r" = 2 ] && grep -q "schema version 999" "$WORK/v.log" || fail "$cmd: exit $r: $(cat "$WORK/v.log")"
done
echo "cli.readonly_cmds: ok"
