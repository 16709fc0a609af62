#!/usr/bin/env bash
# The table of issue 32 item 4's right-hand-side cases from the stores of the parts of
# configs/paper/sptrsv-rhs.yaml (configs/paper/sptrsv-rhs-*.yaml write one store each; the whole
# config's own store works as well):
#   bash ci/sptrsv-rhs-table.sh results/baselines/<host>/sptrsv-rhs-*.db
# Each store counts with every run of its own latest run's revision and config (a part resumed
# over several device calls is one run); the stores are attached to one SQLite session and their
# points joined in the view rhs_points, which ci/sptrsv-rhs.sql reads. Exit 2 for bad input: no
# store, a file that is not one, more stores than SQLite attaches (10).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() {
  echo "sptrsv-rhs-table.sh: $*" >&2
  exit 2
}
[ $# -ge 1 ] || die "usage: sptrsv-rhs-table.sh STORE.db... (the stores of configs/paper/sptrsv-rhs-*.yaml)"
[ $# -le 10 ] || die "$# stores: SQLite attaches at most 10"
command -v sqlite3 >/dev/null || die "the sqlite3 shell is not installed"
# A single quote in a path is doubled for the SQL string literal.
quote() { printf "'%s'" "${1//\'/\'\'}"; }
view="CREATE TEMP VIEW rhs_points AS"
attach=""
i=0
for db in "$@"; do
  [ -f "$db" ] || die "$db: no such store"
  sqlite3 -readonly "$db" "SELECT COUNT(*) FROM runs; SELECT COUNT(*) FROM points;" >/dev/null 2>&1 ||
    die "$db: not a rooftune store (no runs and points tables)"
  s=s$i
  attach+="ATTACH $(quote "$db") AS $s;"$'\n'
  [ $i -gt 0 ] && view+=$'\nUNION ALL'
  # this store's points of the runs at its latest run's revision and config
  view+="
SELECT $(quote "$(basename "$db" .db)") AS store, r.git_revision AS revision, r.git_dirty AS dirty,
       p.id AS point_id, p.matrix, p.kernel, p.params, p.status, p.verified, p.reason,
       p.time_median_s, p.time_min_s,
       json_extract(p.problem, '\$.solve') AS solve, json_extract(p.problem, '\$.nrhs') AS nrhs,
       COALESCE(CAST((SELECT value FROM $s.metrics m WHERE m.point_id = p.id AND m.name = 'parts') AS INT),
                json_extract(p.params, '\$.parts')) AS parts,
       (SELECT COUNT(*) FROM $s.samples x WHERE x.point_id = p.id) AS n_samples,
       EXISTS (SELECT 1 FROM $s.metrics m WHERE m.point_id = p.id AND m.name = 'noisy' AND m.value = 1) AS noisy,
       EXISTS (SELECT 1 FROM $s.metrics m WHERE m.point_id = p.id AND m.name = 'aborted' AND m.value = 1) AS aborted,
       (SELECT value FROM $s.metrics m WHERE m.point_id = p.id AND m.name = 'abort_best_s') AS abort_best_s
FROM $s.points p JOIN $s.runs r ON r.id = p.run_id
WHERE (r.git_revision, r.config_hash) = (SELECT git_revision, config_hash FROM $s.runs ORDER BY id DESC LIMIT 1)"
  i=$((i + 1))
done
printf '%s%s;\n.read %s\n' "$attach" "$view" "$(quote "$here/sptrsv-rhs.sql")" |
  sqlite3 -header -column :memory:
