# A run that writes no sample never exits 0 (strobe-synth-convert(1), EXIT
# STATUS): missing binaries, selections that match nothing and binary
# filters that match nothing exit 5 with one line saying why and what to
# try, and leave no output behind; options naming files that do not exist
# are usage errors.  The same damage gets the same diagnosis and exit code
# from convert, windows and dump.  Branch-only output carries the MMAP2
# lines llvm-profgen needs for a position-independent binary, and pipe
# input converts a recording without pause samples like the file does.
. tests/e2e/lib.sh

G=tests/fixtures/generated
f=$G/etm4-etr-basic.data
[ -e "$f" ] || fail "no generated fixtures"

# nothing_written WHY-PATTERN ARGS...: exit 5, the reason on the last
# line, no output file
nothing_written() {
	pat=$1
	shift
	rm -f "$T/o.ps"
	"$SY" convert -o "$T/o.ps" "$@" 2>"$T/err"
	rc=$?
	[ $rc -eq 5 ] || { cat "$T/err"; fail "convert $*: exit $rc, not 5"; }
	tail -n 1 "$T/err" | grep -q -- "$pat" ||
		{ cat "$T/err"; fail "convert $*: last line does not say '$pat'"; }
	[ ! -e "$T/o.ps" ] || fail "convert $*: an output was written"
}

# the demo's own file without --symfs: its binary is not found
nothing_written '--symfs' "$G/demo-etm.data"
nothing_written 'branchy-aarch64' "$G/demo-etm.data"
# selections that match nothing
nothing_written 'selected none' --symfs . --pid 4242 "$f"
nothing_written 'selected none' --symfs . --comm nosuchprogram "$f"
nothing_written 'selected none' --symfs . --tid 1,2,3 "$f"
nothing_written 'selected none' --symfs . -C 7 "$f"
nothing_written 'selected none' --symfs . --time 5000,6000 "$f"
nothing_written "binary-filter 'nosuchbinary'" --symfs . --binary-filter nosuchbinary "$f"
# windows says the same about an empty selection
expect_status 5 "$SY" windows --symfs . --pid 4242 "$f" >/dev/null 2>"$T/err"
grep -q 'selected none' "$T/err" || { cat "$T/err"; fail "windows --pid: no reason"; }

# files that do not exist: usage errors naming the option, not the input
for opt in --symfs --buildid-dir --binary; do
	expect_status 2 "$SY" convert $opt "$T/nonexistent" -o "$T/o.ps" "$f" 2>"$T/err"
	[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err"; fail "$opt missing: not one line"; }
	grep -q -- "$opt $T/nonexistent: No such file" "$T/err" || { cat "$T/err"; fail "$opt missing: not said"; }
	grep -q "etm4-etr-basic" "$T/err" && fail "$opt missing: the input file is blamed"
done
[ ! -e "$T/o.ps" ] || fail "an output was written on a usage error"

# one diagnosis for a truncated file in all three commands: the damage,
# with its offset, exit 4
head -c 1000 "$f" >"$T/cut.data"
for cmd in "dump" "convert --symfs . -o $T/cut.ps" "windows --symfs ."; do
	$SY $cmd "$T/cut.data" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 4 ] || { cat "$T/err"; fail "$cmd on a truncated file: exit $rc, not 4"; }
	grep -q 'offset [0-9]*: AUXTRACE_INFO record .* runs past the end' "$T/err" ||
		{ cat "$T/err"; fail "$cmd on a truncated file: not the damage"; }
	grep -q 'holds no hardware trace' "$T/err" && fail "$cmd: blames the recording, not the damage"
done
# feature sections past the end of the file: damage (exit 4) everywhere
sz=$(wc -c <"$f")
head -c $((sz - 100)) "$f" >"$T/nofeat.data"
for cmd in "dump" "convert --symfs . -o $T/nofeat.ps" "windows --symfs ."; do
	$SY $cmd "$T/nofeat.data" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 4 ] || { cat "$T/err"; fail "$cmd with features past the end: exit $rc, not 4"; }
	grep -q 'past the end of the file' "$T/err" || { cat "$T/err"; fail "$cmd: damage not named"; }
done

# pipe input without pause samples: the whole trace, as from the file
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_etm.data"
"$SY" convert -q --format lbr --symfs "$R/symfs" -o "$T/file.lbr" "$R/orig/perf_etm.data" ||
	fail "real capture: file convert failed"
cat "$R/orig/perf_etm.data" | "$SY" convert -q --format lbr --symfs "$R/symfs" -o "$T/pipe.lbr" - 2>"$T/err" ||
	{ cat "$T/err"; fail "real capture through a pipe: convert failed"; }
cmp -s "$T/file.lbr" "$T/pipe.lbr" || fail "pipe input converts differently from the file"
cat "$R/orig/perf_etm.data" | "$SY" windows --summary --symfs "$R/symfs" - >/dev/null 2>"$T/err" ||
	{ cat "$T/err"; fail "windows through a pipe failed"; }
# --format lbr on PIE fixtures: MMAP2 lines, and llvm-profgen builds a
# profile from them (without them: "No samples in perf script!")
if command -v llvm-profgen-19 >/dev/null 2>&1; then
	for name in etm4-etr-pie ete-trbe-pie; do
		bin=$(awk '$1 == "binary" { print $2; exit }' "$G/$name.truth")
		expect_status 0 "$SY" convert -q --symfs . --format lbr -o "$T/$name.lbr" "$G/$name.data"
		grep -q '^PERF_RECORD_MMAP2 ' "$T/$name.lbr" || fail "$name: lbr output without MMAP2 lines"
		llvm-profgen-19 --perfscript="$T/$name.lbr" --binary="$bin" --format=text \
			--output="$T/$name.prof" >"$T/pg" 2>&1 || { cat "$T/pg"; fail "$name: llvm-profgen failed"; }
		grep -q 'No samples' "$T/pg" && { cat "$T/pg"; fail "$name: llvm-profgen found no samples"; }
		grep -q '^[a-z_]*:[0-9]*:[0-9]*$' "$T/$name.prof" || { cat "$T/$name.prof"; fail "$name: empty profile"; }
	done
else
	skip "llvm-profgen-19 not on PATH (the exit-status checks above passed)"
fi

# the kernel (issue 23, defect 8): the advice names only what finds a
# kernel, a --kcore directory without kcore is a usage error naming the
# option, and -k is --vmlinux as in perf
k=$G/etm4-etr-kernel.data
expect_status 5 "$SY" convert -q --symfs . -o "$T/o.ps" "$k" 2>"$T/kk"
grep -q 'kallsyms.*was not found: pass the kernel image with --vmlinux' "$T/kk" ||
	{ cat "$T/kk"; fail "kernel: advice does not name --vmlinux"; }
grep -q 'use --symfs DIR, --binary PATH' "$T/kk" && { cat "$T/kk"; fail "kernel: advice contradicts itself"; }
mkdir -p "$T/kcore-empty"
expect_status 2 "$SY" convert -q --kcore "$T/kcore-empty" -o "$T/o.ps" "$k" 2>"$T/kk"
grep -q '^strobe-synth: --kcore .*kcore-empty: no kcore' "$T/kk" || { cat "$T/kk"; fail "bad --kcore: not a usage error naming it"; }
expect_status 2 "$SY" convert -q -k "$T/no-such-vmlinux" -o "$T/o.ps" "$k" 2>"$T/kk"
grep -q -- '--vmlinux .*no-such-vmlinux' "$T/kk" || { cat "$T/kk"; fail "-k is not --vmlinux"; }

# another build of the binary (issue 23, defect 4): nothing is damaged, so
# exit 5 (not 4), the build-ids recorded and found, and --allow-mismatch
# offered; forced, the binary is blamed, not the trace
cp tests/fixtures/programs/bin/deep-aarch64 "$T/branchy-aarch64"
expect_status 5 "$SY" convert -q --binary "$T/branchy-aarch64" -o "$T/o.ps" "$f" 2>"$T/mm"
grep -q 'build-id mismatch: recorded [0-9a-f]*, .*branchy-aarch64 has [0-9a-f]*' "$T/mm" &&
	grep -q 'only in another build.*--allow-mismatch' "$T/mm" ||
	{ cat "$T/mm"; fail "another build: the build-ids or the --allow-mismatch hint missing"; }
expect_status 5 "$SY" convert -q --binary "$T/branchy-aarch64" --allow-mismatch -o "$T/o.ps" "$f" 2>"$T/mm"
grep -q 'read in another build (--allow-mismatch)' "$T/mm" || { cat "$T/mm"; fail "forced build: the binary is not blamed"; }
grep -q '(damaged trace)' "$T/mm" && { cat "$T/mm"; fail "forced build: the trace is blamed"; }

# --stats-json on every exit once reading began (issue 23, defect 10): a
# fleet job learns why a run gave nothing and which binaries were missing
mkdir -p "$T/empty-symfs"
rm -f "$T/n.json" "$T/o.ps"
expect_status 5 "$SY" convert -q --symfs "$T/empty-symfs" -o "$T/o.ps" \
	--stats-json "$T/n.json" "$f" 2>/dev/null
[ ! -e "$T/o.ps" ] || fail "exit 5 left a profile"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["exit_status"] == 5, j["exit_status"]
assert "was not found" in j["exit_reason"], j["exit_reason"]
m = j["missing_binaries"]
assert len(m) == 1 and m[0]["path"].endswith("branchy-aarch64") and m[0]["windows"] == 5, m
assert j["by_status"]["ok"] == 0' "$T/n.json" || fail "exit 5: --stats-json missing or wrong"
printf 'not a perf.data file\n' >"$T/junk.data"
expect_status 3 "$SY" convert -q -o "$T/o.ps" --stats-json "$T/j.json" "$T/junk.data" 2>/dev/null
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["exit_status"] == 3 and j["exit_reason"], j' "$T/j.json" || fail "exit 3: --stats-json missing or wrong"
"$SY" convert -q --symfs . -o "$T/o.ps" --stats-json "$T/ok.json" "$f" || fail "convert failed"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["exit_status"] == 0 and j["exit_reason"] == "converted", j["exit_reason"]' "$T/ok.json" ||
	fail "exit 0: --stats-json exit status wrong"

echo "convert: nothing written is exit 5 with a reason; one diagnosis per damage; lbr has MMAP2; pipes reread"
exit 0
