# cli.harden_inputs (issue 37, item 10): readers bound what they read and refuse what they cannot
# read. matrix --file on 2 GB of zero bytes (a sparse file: no disk used) fails at its first line
# in a fraction of a second instead of reading it all; an endless line without a line break is
# refused at 1 MiB; a FIFO with no writer is refused at once (matrix --file, replay, a config's
# matrix file, which a run records as that matrix's failure), never waited on.
. "$2/lib.sh"
truncate -s 2G "$WORK/zeros.mtx"
expect 2 "zeros.mtx:1: line contains a NUL byte" timeout 20 "$RT" matrix --file "$WORK/zeros.mtx"
head -c 3000000 /dev/zero | tr '\0' 'a' >"$WORK/long.mtx"
expect 2 "long.mtx:1: line is longer than 1048576 bytes" "$RT" matrix --file "$WORK/long.mtx"
mkfifo "$WORK/fifo"
expect 2 "cannot read .*fifo as a Matrix Market file: it is a FIFO, not a regular file" \
  timeout 20 "$RT" matrix --file "$WORK/fifo"
expect 2 "cannot read .*fifo as a recorded space or a store: it is a FIFO" timeout 20 "$RT" replay "$WORK/fifo"
expect 2 "it is a FIFO" timeout 20 "$RT" validate "$HERE/small.yaml" \
  --set 'matrices=[{name: f, file: '"$WORK/fifo"'}]' --set 'kernels.0.constraints=["matrix.rows > 0"]'
expect 1 "8 error\(s\)" timeout 60 "$RT" run "$HERE/small.yaml" --db "$WORK/f.db" --quiet \
  --set 'matrices=[{name: f, file: '"$WORK/fifo"'}]'
sql "$WORK/f.db" "SELECT DISTINCT reason FROM points" | grep -q "fifo as a Matrix Market file: it is a FIFO" ||
  fail "the stored reason: $(sql "$WORK/f.db" "SELECT DISTINCT reason FROM points")"
echo "cli.harden_inputs: ok"
