# A window's process is named as it was at the window's pause, as perf
# names a sample by its thread's name at the sample's time (comms.h):
#  - a rename (a COMM record, no exec, as prctl(PR_SET_NAME) writes)
#    between two windows' pauses, inserted into the generated PT pipe
#    recording: the windows before it keep the old name.  The name was
#    looked up when the window was handed out, after the walk had read the
#    rename: every window was "renamed", in convert's perf.data output and
#    for --comm;
#  - a process forked without exec (pt-fork-order's pid 2000) has its
#    parent's name, which perf copies at the FORK: it had none (":unknown"
#    in the perf.data output, and --comm selected none of its windows).
#  - the real quipper Intel PT capture: pid 3174 is "perf" until it execs
#    "echo", and perf names its first traced branches "perf", its last
#    "echo"; windows --comm perf listed none of its windows.
# The oracle is perf 6.1 reading the input: each sample convert writes
# (its pause's time) must carry the name perf gives the pause sample of
# that time; the output is the same at -j 1 and -j 2.
. tests/e2e/lib.sh
require_tool python3
require_tool perf
G=tests/fixtures/generated

# insert_comm IN OUT NAME TIME: IN with a COMM record renaming the first
# COMM's process to NAME at TIME (ns), after the last SAMPLE before TIME
python3 - "$G/pt-pipe.data" "$T/ren.data" renamed 1000002001 <<'PY' || fail "no place for the rename"
import struct, sys
sys.path.insert(0, "tests/damage")
import perfdata
src, dst, name, t = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4])
d = bytearray(open(src, "rb").read())
pd = perfdata.PerfData(bytes(d))
assert pd.pipe
comm = next(r for r in pd.records if r.type == 3)
at = max(r.end for r in pd.records if r.type == 9 and r.time is not None and r.time < t)
assert any(r.type == 9 and r.time is not None and r.time > t for r in pd.records)
body = bytes(d[comm.off:comm.off + comm.size])
pid, tid = struct.unpack_from("<II", body, 8)
nlen = body[16:].index(0) + 1
trailer = bytearray(body[16 + (nlen + 7) // 8 * 8:])
# the sample_id trailer: TID, then TIME (every attr here has both)
struct.pack_into("<Q", trailer, 8, t)
field = name.ljust((len(name) + 1 + 7) // 8 * 8, b"\0")
rec = struct.pack("<IHHII", 3, 0, 16 + len(field) + len(trailer), pid, tid) + field + trailer
d[at:at] = rec
open(dst, "wb").write(d)
PY

# names IN: "time/pid comm" of every sample in perf.data IN, as perf
# reads it (nanoseconds; two CPUs may sample at one time)
names() {
	perf script --ns --no-itrace -F comm,pid,time -i "$1" 2>/dev/null |
		awk '{ sub(/:$/, "", $3); print $3 "/" $2, $1 }' | sort -u
}

# check IN LABEL: convert's perf.data output of IN names each sample as
# perf names IN's sample of the same time, at -j 1 and -j 2 alike
check() {
	names "$1" >"$T/want"
	[ -s "$T/want" ] || fail "$2: perf lists no sample of the input"
	for j in 1 2; do
		"$SY" convert -q -j $j --symfs . --format perf-data -o "$T/out$j.data" "$1" ||
			fail "$2: convert -j $j failed"
		names "$T/out$j.data" >"$T/got$j"
		[ -s "$T/got$j" ] || fail "$2: -j $j: perf lists no sample of the output"
		bad=$(join -j 1 -o 1.1,1.2,2.2 "$T/got$j" "$T/want" |
			awk '$2 != $3' | head -3)
		[ -z "$bad" ] || fail "$2: -j $j: samples named unlike perf's (time/pid ours perf): $bad"
		[ "$(join -j 1 "$T/got$j" "$T/want" | wc -l)" -eq "$(wc -l <"$T/got$j")" ] ||
			fail "$2: -j $j: a sample of the output has no sample of the input at its time"
	done
	cmp -s "$T/got1" "$T/got2" || fail "$2: names differ between -j 1 and -j 2"
}

check "$T/ren.data" rename
[ "$(awk '{ print $2 }' "$T/got1" | sort -u | tr '\n' ' ')" = "branchy-x86_64 renamed " ] ||
	fail "rename: the output should have samples of both names: $(cat "$T/got1")"
for n in branchy-x86_64 renamed; do
	want=$(awk -v n=$n '$2 == n' "$T/got1" | wc -l)
	"$SY" convert --symfs . --comm $n -o "$T/c.ps" "$T/ren.data" 2>"$T/err" ||
		fail "rename: convert --comm $n failed: $(cat "$T/err")"
	grep -q ": $want samples written" "$T/err" ||
		fail "rename: --comm $n: want $want samples: $(cat "$T/err")"
done

check "$G/pt-fork-order.data" fork
grep -q "/2000 branchy-x86_64$" "$T/got1" || fail "fork: no sample of pid 2000 named as its parent"
want=$(grep -c "/2000 " "$T/got1")
"$SY" convert --symfs . --comm branchy-x86_64 --pid 2000 -o "$T/c.ps" "$G/pt-fork-order.data" 2>"$T/err" ||
	fail "fork: convert --comm --pid 2000 failed: $(cat "$T/err")"
grep -q ": $want samples written" "$T/err" ||
	fail "fork: --comm branchy-x86_64 --pid 2000: want $want samples: $(cat "$T/err")"

# the real capture: the windows named "perf" are the first of pid 3174's
# (a name changes forward in time only, and the trace starts in "perf"),
# those named "echo" all the rest, as perf names its branches
Q=$SHARED/fixtures/real/quipper-intel-pt
require_path "$Q/perf.data.intel_pt-4.14"
P=$Q/perf.data.intel_pt-4.14
first=$(perf script --itrace=b -F comm,pid -i "$P" 2>/dev/null | awk '$2 ~ /^3174/ { print $1; exit }')
last=$(perf script --itrace=b -F comm,pid -i "$P" 2>/dev/null | awk '$2 ~ /^3174/ { c = $1 } END { print c }')
[ "$first $last" = "perf echo" ] || fail "quipper: perf names pid 3174's branches $first ... $last, not perf ... echo"
idx() {	# the windows of pid 3174 that windows ARGS... lists
	"$SY" windows --json --symfs "$Q" "$@" "$P" 2>/dev/null | python3 -c '
import json, sys
print(" ".join(str(w["index"]) for w in json.load(sys.stdin)["windows_list"] if w["pid"] == 3174))'
}
all=$(idx) perf=$(idx --comm perf) echo=$(idx --comm echo)
[ -n "$perf" ] && [ -n "$echo" ] || fail "quipper: --comm perf lists '$perf', --comm echo '$echo'"
[ "$perf $echo" = "$all" ] ||
	fail "quipper: --comm perf ($perf) and --comm echo ($echo) are not pid 3174's windows ($all) in order"
exit 0
