# sptrsv_lib.sh: what the sptrsv end-to-end scripts check alike. Source it after rt_test_lib.sh.

# sptrsv_all_ok DB TOTAL: DB holds TOTAL points, every one ok (those that are not listed) and
# with a residual below 1e-12; ok is left holding their count.
sptrsv_all_ok() {
  local total res
  total=$(sql "$1" "SELECT COUNT(*) FROM points")
  ok=$(sql "$1" "SELECT COUNT(*) FROM points WHERE status = 'ok'")
  [ "$total" = "$2" ] || fail "$total points, expected $2"
  [ "$ok" = "$total" ] || { sql "$1" "SELECT kernel, params, status, reason FROM points WHERE status != 'ok'"; fail "$ok of $total points ok"; }
  res=$(sql "$1" "SELECT COUNT(*) FROM points p WHERE NOT (IFNULL($(m residual), 1) < 1e-12)")
  [ "$res" = 0 ] || fail "$res points with a residual above 1e-12 (or none stored)"
}
