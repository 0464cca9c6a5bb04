# --comm selects windows by their process's name.  perf writes a COMM
# record per thread (a thread's own name, e.g. from pthread_setname_np,
# and perf record's synthesized ones for every thread it finds), and a
# thread's name is not its process's: process 1000 of ete-trbe-smp, with a
# COMM naming its thread 1001 "worker" put right after the process's own
# (as perf record writes them), still has the name "branchy".  Oracle:
# --pid, which reads no name, selects the same windows.
. tests/e2e/lib.sh
command -v python3 >/dev/null 2>&1 || skip "needs python3"
F=tests/fixtures/generated/ete-trbe-smp.data
[ -f "$F" ] || fail "$F not generated"
python3 - "$F" "$T/named.data" <<'EOF' || fail "cannot write the renamed thread's COMM"
import struct, sys
sys.path.insert(0, "tests/damage")
import mutate, perfdata  # noqa: E402

data = open(sys.argv[1], "rb").read()
pd = perfdata.PerfData(data)
REC_COMM = 3
for r in pd.records:
    if r.type != REC_COMM:
        continue
    pid, tid = struct.unpack_from("<II", data, r.off + 8)
    name = data[r.off + 16:r.off + 24].split(b"\0")[0]
    if (pid, tid, name) == (1000, 1000, b"branchy"):
        break
else:
    sys.exit("no COMM of process 1000")
rec = bytearray(data[r.off:r.off + r.size])
struct.pack_into("<H", rec, 4, r.misc & ~0x2000)   # not an exec
struct.pack_into("<I", rec, 12, 1001)                # thread 1001
rec[16:24] = b"worker\0\0"
open(sys.argv[2], "wb").write(mutate._insert(pd, r.off + r.size, bytes(rec)))
EOF
"$SY" dump "$T/named.data" | grep -q 'COMM .* 1000/1001 worker$' ||
	fail "the thread's COMM is not in the file"
for sel in "--pid 1000" "--comm branchy" "--comm worker"; do
	"$SY" windows --json --symfs . $sel "$T/named.data" >"$T/w.json" 2>"$T/w.err"
	python3 -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["windows_list"]))' "$T/w.json" \
		>"$T/n" 2>/dev/null || echo 0 >"$T/n"
	echo "$sel: $(cat "$T/n") windows"
	eval "n_$(echo "$sel" | tr -c 'a-z0-9\n' _)=$(cat "$T/n")"
done
[ "$n___pid_1000" -gt 0 ] || fail "no window of process 1000"
[ "$n___comm_branchy" -eq "$n___pid_1000" ] ||
	fail "--comm branchy selects $n___comm_branchy windows, --pid 1000 $n___pid_1000"
[ "$n___comm_worker" -eq 0 ] ||
	fail "--comm worker (a thread's name) selects $n___comm_worker windows"
exit 0
