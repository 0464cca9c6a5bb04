# Diagnostics a user can act on, and the options a perf user reaches for:
# decode errors in words with the binary to look for; windows names the
# missing binaries as convert does; a bad option is one line and a hint;
# counts agree in number; conflicting options are refused (exit 2);
# --version on every subcommand; -v names the files used; comma lists,
# --tid, -C and --time select windows as perf's options do, in the
# listing and in the summary; --disasm shows something for end-mismatch.
. tests/e2e/lib.sh

G=tests/fixtures/generated
f=$G/etm4-etr-basic.data
[ -e "$f" ] || fail "no generated fixtures"

# decode errors: the library's code in words, the binary not found, what
# to try (ETM: OpenCSD; PT: libipt)
for name in demo-etm pt-damage; do
	"$SY" windows "$G/$name.data" >"$T/w" 2>/dev/null
	grep 'decode-error' "$T/w" | head -n 1 >"$T/line"
	grep -q 'code [0-9]' "$T/line" && { cat "$T/line"; fail "$name: bare library code"; }
	grep -q 'first: no \(code\|memory mapped\) at' "$T/line" || { cat "$T/line"; fail "$name: error not in words"; }
	grep -q 'binary /tests/fixtures/programs/bin/branchy-[a-z0-9_]* not found: use --symfs' "$T/line" ||
		{ cat "$T/line"; fail "$name: the missing binary is not named"; }
	grep -q '(s)' "$T/line" && { cat "$T/line"; fail "$name: 'error(s)'"; }
	grep -q '^missing binary /tests/fixtures/programs/bin/branchy-.* needed by [0-9]* windows\?; use --symfs' "$T/w" ||
		{ cat "$T/w"; fail "$name: windows does not name the missing binary"; }
done
# ETM says where the code was missing: the demo's first window resumes at
# its truth's start_ip, and that is where the decoder found no code
ip=$(awk '$1 == "window" && $2 == 0 { for (i = 3; i <= NF; i++) if ($i ~ /^start_ip=/) print substr($i, 10) }' "$G/demo-etm.truth")
"$SY" windows "$G/demo-etm.data" 2>/dev/null | grep 'decode-error' | head -n 1 |
	grep -q "no code at the traced address ($ip)" ||
	fail "demo-etm: the address without code ($ip) is not named"
"$SY" windows --json "$G/demo-etm.data" 2>/dev/null |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["windows_list"][0]["reason"]; assert "no code at" in r, r' ||
	fail "windows --json: reason not in words"

# windows --items: each window's decoder items under its line (the
# window index is the line above them), codes in words; the same bytes
# whatever the thread count
"$SY" windows --items "$G/demo-etm.data" >"$T/items" 2>/dev/null
awk '$1 == "0" && $NF != "" { w = 1; next } w && /^  item / { print; exit }' "$T/items" |
	grep -q '^  item context .*(thread 1000)' ||
	{ head -n 5 "$T/items"; fail "--items: window 0's first item is not under its line"; }
grep -q '^  item error .*code [0-9]* (no code at the traced address)' "$T/items" ||
	fail "--items: error code not in words"
"$SY" windows -j 1 --items --symfs . "$G/pt-smp.data" >"$T/i1" 2>/dev/null
"$SY" windows -j 3 --items --symfs . "$G/pt-smp.data" >"$T/i3" 2>/dev/null
cmp -s "$T/i1" "$T/i3" || fail "--items: depends on the thread count"

# a bad option: one line and a hint, not the whole help
for cmd in convert windows dump; do
	expect_status 2 "$SY" $cmd --no-such-option "$f" >"$T/out" 2>"$T/err"
	[ "$(wc -l <"$T/err")" -eq 2 ] || { cat "$T/err"; fail "$cmd: bad option: not two lines"; }
	head -n 1 "$T/err" | grep -qx "strobe-synth $cmd: unrecognized option '--no-such-option'" ||
		{ cat "$T/err"; fail "$cmd: bad option not named"; }
	grep -q -- "strobe-synth $cmd --help" "$T/err" || fail "$cmd: no hint to --help"
	[ ! -s "$T/out" ] || fail "$cmd: bad option printed on stdout"
	# --version on every subcommand
	"$SY" $cmd --version >"$T/v" || fail "$cmd --version failed"
	grep -q "^strobe-synth $cmd [0-9]" "$T/v" || { cat "$T/v"; fail "$cmd --version"; }
done
expect_status 2 "$SY" convert --tid "$f" 2>"$T/err"

# singular and plural
"$SY" convert --symfs . --time 1.0000009,1.0000011 -o "$T/one.ps" "$f" 2>"$T/err" ||
	{ cat "$T/err"; fail "convert --time failed"; }
grep -q ' 1 sample written' "$T/err" || { cat "$T/err"; fail "'1 sample written' expected"; }
grep -q ' 0 decode errors' "$T/err" || fail "'0 decode errors' expected"
grep -q '1 samples\|1 windows\|1 errors' "$T/err" && { cat "$T/err"; fail "singular after 1 expected"; }
"$SY" windows "$G/pt-damage.data" 2>/dev/null | grep -q '1 decode error,' || fail "'1 decode error,' expected"

# conflicting options: refused, nothing on stdout
expect_status 2 "$SY" dump --stats --header "$f" >"$T/out" 2>/dev/null
[ ! -s "$T/out" ] || fail "dump --stats --header printed something"
expect_status 2 "$SY" windows --json --items "$f" >"$T/out" 2>/dev/null
[ ! -s "$T/out" ] || fail "windows --json --items printed something"

# -v: which file served which recorded binary
"$SY" convert -v --symfs . -o "$T/v.ps" "$f" 2>"$T/err" || fail "convert -v failed"
grep -q 'binary /tests/fixtures/programs/bin/branchy-aarch64: read from \./tests/fixtures/programs/bin/branchy-aarch64' "$T/err" ||
	{ cat "$T/err"; fail "-v does not say which file was used"; }
"$SY" convert --verbose "$G/demo-etm.data" -o "$T/v.ps" 2>"$T/err"
grep -q 'window 0 (cpu 0, tid 1000) not converted: decode-error' "$T/err" ||
	{ cat "$T/err"; fail "--verbose does not say why windows were dropped"; }

# selections: the listing and the summary of windows, against the
# truth's own pause samples
s=$G/etm4-etr-smp
"$SY" windows --json --symfs . "$s.data" >"$T/all.json" 2>/dev/null || fail "windows --json"
for sel in "--pid 1000,1001" "--tid 1001" "-C 0-1" "--cpu 1,3" "--comm branchy,nothing" "--time 1.000002,1.000006" "--time ,1.000003"; do
	"$SY" windows --json --symfs . $sel "$s.data" >"$T/sel.json" 2>/dev/null
	python3 - "$T/all.json" "$T/sel.json" "$sel" <<'PY' || fail "windows $sel (above)"
import json, sys
a, s, sel = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3].split()
opt, val = sel
def ids(v):
    out = set()
    for part in v.split(","):
        lo, _, hi = part.partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out
def secs(x):
    return int(round(float(x) * 1e9)) if x else None
def keep(w):
    if opt == "--pid": return w["pid"] in ids(val)
    if opt == "--tid": return w["tid"] in ids(val)
    if opt in ("-C", "--cpu"): return w["cpu"] in ids(val)
    if opt == "--comm":  # the processes' names in the truth
        return {1000: "branchy", 2000: "other"}[w["pid"]] in val.split(",")
    lo, hi = [secs(x) for x in val.split(",")]
    return (lo is None or w["end_time"] >= lo) and (hi is None or w["end_time"] <= hi)
want = [w["index"] for w in a["windows_list"] if keep(w)]
got = [w["index"] for w in s["windows_list"]]
assert got == want, (sel, got, want)
assert s["windows"] == len(want), (sel, s["windows"], len(want))
by = {}
for w in s["windows_list"]:
    by[w["status"]] = by.get(w["status"], 0) + 1
assert all(s["by_status"][k] == by.get(k, 0) for k in s["by_status"]), (sel, s["by_status"], by)
PY
done
expect_status 2 "$SY" windows --time 5 "$f" 2>"$T/err"
grep -q 'START,STOP' "$T/err" || { cat "$T/err"; fail "--time: bad value not explained"; }

# --disasm on an end-mismatch window without trace: the pause IP's code
"$SY" windows --symfs . --disasm 3 "$G/etm4-etr-missed.data" >"$T/d" 2>/dev/null
awk '$9 == "end-mismatch" { getline; print; exit }' "$T/d" >"$T/line"
grep -q 'pause sample IP; this window traced no instruction' "$T/line" ||
	{ cat "$T/d"; fail "--disasm shows nothing for the end-mismatch window"; }
grep -q '^ *[0-9a-f]*  [a-z]' "$T/line" || { cat "$T/line"; fail "--disasm: no instruction at the pause IP"; }
# damage is said once, not once per pass over the file: a plain trace
# recording (whole trace) is read once to index it, once to convert it
r=tests/fuzz/regress/session-aux-range-wraps-whole-trace.data
for cmd in "convert --format lbr -o $T/o" "windows"; do
	"$SY" $cmd --symfs . "$r" >/dev/null 2>"$T/err"
	n=$(grep -c 'AUX record: offset .* wraps around; ignored' "$T/err")
	[ "$n" = 1 ] || { cat "$T/err"; fail "$cmd: the damage is said $n times"; }
done
echo "messages: words, one-line errors, plurals, conflicts, perf-style selections, --version, -v, --disasm, damage said once"
exit 0
