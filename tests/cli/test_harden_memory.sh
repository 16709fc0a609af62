# cli.harden_memory (issue 37, item 1): damaged and hostile recorded spaces fail cleanly. A gzip
# with flipped bytes, a folder and a cut gzip each give zlib's or the system's own reason (the
# message is copied before the stream is closed: ASan, the CI build, catches a read after
# gzclose), and a small gzip that expands past the reader's limit is refused at the limit instead
# of filling memory. Exit status 2 (bad input) every time.
. "$2/lib.sh"
cp "$HERE/../fuzz/corpus/recorded/kt.json" "$WORK/k.json"
gzip -9 -c "$WORK/k.json" >"$WORK/k.json.gz"
expect 0 "5 configurations \(4 valid\)" "$RT" replay "$WORK/k.json.gz" --budget 2 --repeats 1 --strategy random
# three bytes flipped inside the deflate stream
python3 - "$WORK/k.json.gz" "$WORK/flipped.json.gz" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
for i in (60, 61, 62):
    d[i] ^= 0xFF
open(sys.argv[2], 'wb').write(d)
PY
expect 2 "cannot read .*flipped.json.gz: (invalid|incorrect|unknown|too many|too far|unexpected)" \
  "$RT" replay "$WORK/flipped.json.gz"
grep -q "<fd:" "$WORK/out.txt" && fail "zlib's descriptor name leaked into the message"
# no trailer: the last 8 bytes (CRC and length) cut off
head -c -8 "$WORK/k.json.gz" >"$WORK/cut.json.gz"
expect 2 "cut.json.gz: the gzip stream ends early" "$RT" replay "$WORK/cut.json.gz"
expect 2 "it is a folder" "$RT" replay "$WORK"
# 80 MB of blanks in 80 kB: refused at the 64 MiB limit
head -c 80M /dev/zero | tr '\0' ' ' | gzip -1 >"$WORK/bomb.json.gz"
expect 2 "bomb.json.gz holds more than 64 MiB of JSON once decompressed" \
  "$RT" replay "$WORK/bomb.json.gz"
echo "cli.harden_memory: ok"
