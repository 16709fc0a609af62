# cli.harden_readonly (issue 37, item 2): a query never writes. `best` opens stores read-only: it
# adds no table to a store without one, leaves a foreign SQLite file and an empty file as they
# were, and makes no -wal/-shm; `tune --from` with a bad source leaves no tuning database behind,
# and one that fails to record into an existing database leaves it unchanged.
. "$2/lib.sh"
"$RT" run "$HERE/tiny.yaml" --db "$WORK/s.db" --quiet >"$WORK/run.log" 2>&1 || fail "run: $(tail -3 "$WORK/run.log")"
before=$(fingerprint "$WORK/s.db")
expect 2 "s.db: a rooftune store with no tuning table, so not a tuning database" \
  "$RT" best --db "$WORK/s.db" --kernel spmm.cpu.csr
[ "$(fingerprint "$WORK/s.db")" = "$before" ] || fail "best changed the store"
[ -z "$(sql "$WORK/s.db" "SELECT name FROM sqlite_master WHERE name = 'tuning'")" ] || fail "best made a tuning table"
[ ! -e "$WORK/s.db-wal" ] && [ ! -e "$WORK/s.db-shm" ] || fail "best left WAL files: $(ls "$WORK")"
sqlite3 "$WORK/foreign.db" "CREATE TABLE t (x); INSERT INTO t VALUES (1);"
before=$(fingerprint "$WORK/foreign.db")
expect 2 "foreign.db: not a rooftune result store" "$RT" best --db "$WORK/foreign.db" --kernel k
[ "$(fingerprint "$WORK/foreign.db")" = "$before" ] || fail "best changed a foreign database"
: >"$WORK/empty.db"
expect 2 "empty.db is empty, so not a rooftune result store" "$RT" best --db "$WORK/empty.db" --kernel k
[ ! -s "$WORK/empty.db" ] || fail "best wrote into an empty file"
# tune --from a bad source: no tuning database is made
echo "not a store" >"$WORK/bad.db"
expect 2 "rooftune tune: --from: .*bad.db: not a SQLite database" \
  "$RT" tune --from "$WORK/bad.db" --tuning-db "$WORK/n.db"
[ ! -e "$WORK/n.db" ] && [ ! -e "$WORK/n.db-wal" ] || fail "a failed tune left $(ls "$WORK")"
# into a foreign database: refused, unchanged
before=$(fingerprint "$WORK/foreign.db")
expect 2 "rooftune tune: --tuning-db: .*foreign.db' is a SQLite database but not a rooftune result store" \
  "$RT" tune --from "$WORK/s.db" --tuning-db "$WORK/foreign.db"
[ "$(fingerprint "$WORK/foreign.db")" = "$before" ] || fail "tune changed a foreign database"
# and the good path still works: record, then query it
expect 0 "tuning database .*n.db: [1-9][0-9]* entr" "$RT" tune --from "$WORK/s.db" --tuning-db "$WORK/n.db"
before=$(fingerprint "$WORK/n.db")
expect 0 "matched:   architecture cpu" "$RT" best --db "$WORK/n.db" --kernel spmm.cpu.csr --arch cpu
[ "$(fingerprint "$WORK/n.db")" = "$before" ] || fail "a query changed the tuning database"
echo "cli.harden_readonly: ok"
