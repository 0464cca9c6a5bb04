# convert --format perf-data: a perf.data holding the emitted samples with
# their synthesized branch stacks, in the sample format perf inject
# --itrace=...l writes (IP, TID, TIME, CPU, PERIOD, BRANCH_STACK: no
# callchain, so that `perf script -F pid,ip,brstack` prints one line per
# sample, which perf2bolt parses; issue 23, defect 1).  perf 6.1 reads it
# without a warning; `perf script -F ip,brstack` prints exactly the samples
# of --format lbr (perf_data_check.py), in file mode and through a pipe
# (-o -); perf2bolt-19 builds from it the fdata it builds from --format
# bolt; create_llvm_prof (AutoFDO) reads it and names the fixture's hot
# functions.
. tests/e2e/lib.sh
require_tool perf
PERF="timeout 120 perf --no-pager"

for n in etm4-etr-basic etm4-etr-samples etm4-etr-pie ete-trbe-smp pt-basic \
	pt-samples pt-thread etm4-etr-thread; do
	f=tests/fixtures/generated/$n.data
	"$SY" convert -q --symfs . --format perf-data -o "$T/$n.pd" "$f" ||
		fail "$n: perf-data convert failed"
	"$SY" convert -q --symfs . --format lbr -o "$T/$n.lbr" "$f"
	"$SY" convert -q --symfs . -o "$T/$n.ps" "$f"
	$PERF script -G -F ip,brstack -i "$T/$n.pd" >"$T/$n.plbr" 2>"$T/$n.err" ||
		{ cat "$T/$n.err"; fail "$n: perf script failed"; }
	$PERF script -F ip,brstack -i "$T/$n.pd" >"$T/$n.pone" 2>>"$T/$n.err"
	[ ! -s "$T/$n.err" ] || { cat "$T/$n.err"; fail "$n: perf warned"; }
	python3 tests/e2e/perf_data_check.py lbr "$T/$n.lbr" "$T/$n.plbr" ||
		fail "$n: perf's branch stacks differ from --format lbr"
	# one line per sample without -G too: no callchain lines
	cmp -s "$T/$n.plbr" "$T/$n.pone" ||
		fail "$n: perf script prints more than one line per sample"
	# pipe layout through a real pipe
	"$SY" convert -q --symfs . --format perf-data -o - "$f" |
		$PERF script -G -F ip,brstack -i - >"$T/$n.pipe" 2>"$T/$n.perr"
	grep -v 'pipe mode is not recommended\|^$' "$T/$n.perr" | grep -q . &&
		{ cat "$T/$n.perr"; fail "$n: perf warned on the pipe"; }
	cmp -s "$T/$n.plbr" "$T/$n.pipe" || fail "$n: pipe and file differ"
	"$SY" convert -q -j 3 --symfs . --format perf-data -o "$T/$n.j3" "$f"
	cmp -s "$T/$n.pd" "$T/$n.j3" || fail "$n: output depends on -j"
done

# perf2bolt-19 (perf.data mode, -aggregate-only: called by that name it is
# llvm-bolt otherwise) builds from --format perf-data the fdata it builds
# from --format bolt (perf2bolt -pa) of the same conversion, on ETM, PT and
# a whole-trace recording; 20e0247 wrote 0 objects ("malformed field")
if command -v perf2bolt-19 >/dev/null 2>&1; then
	R=$SHARED/fixtures/real/simpleperf-etm
	for c in "etm4-etr-deep tests/fixtures/programs/bin/deep-aarch64 ." \
		"pt-basic tests/fixtures/programs/bin/branchy-x86_64 ."; do
		set -- $c
		f=tests/fixtures/generated/$1.data
		"$SY" convert -q --symfs "$3" --format perf-data -o "$T/$1.b.pd" "$f" &&
			"$SY" convert -q --symfs "$3" --format bolt -o "$T/$1.pa" "$f" ||
			fail "$1: convert for perf2bolt failed"
		perf2bolt-19 -aggregate-only -p "$T/$1.b.pd" -o "$T/$1.pd.fdata" "$2" \
			>"$T/$1.p2b" 2>&1 || { cat "$T/$1.p2b"; fail "$1: perf2bolt-19 failed on perf-data"; }
		perf2bolt-19 -aggregate-only -pa -p "$T/$1.pa" -o "$T/$1.pa.fdata" "$2" \
			>"$T/$1.p2b" 2>&1 || { cat "$T/$1.p2b"; fail "$1: perf2bolt-19 -pa failed"; }
		[ -s "$T/$1.pd.fdata" ] || fail "$1: perf2bolt-19 wrote no object from perf-data"
		sort "$T/$1.pd.fdata" >"$T/a" && sort "$T/$1.pa.fdata" >"$T/b"
		cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head; fail "$1: perf2bolt's fdata from perf-data differs from --format bolt's"; }
	done
	if [ -e "$R/orig/perf_etm.data" ]; then
		bin=$(find "$R/symfs" -name etm_test_loop -type f | head -n 1)
		"$SY" convert -q --symfs "$R/symfs" --format perf-data -o "$T/rw.pd" "$R/orig/perf_etm.data" &&
			"$SY" convert -q --symfs "$R/symfs" --format bolt -o "$T/rw.pa" "$R/orig/perf_etm.data" ||
			fail "whole trace: convert for perf2bolt failed"
		perf2bolt-19 -aggregate-only --allow-stripped -p "$T/rw.pd" -o "$T/rw.pd.fdata" "$bin" >"$T/rw.p2b" 2>&1 &&
			perf2bolt-19 -aggregate-only --allow-stripped -pa -p "$T/rw.pa" -o "$T/rw.pa.fdata" "$bin" >>"$T/rw.p2b" 2>&1 ||
			{ cat "$T/rw.p2b"; fail "whole trace: perf2bolt-19 failed"; }
		[ -s "$T/rw.pd.fdata" ] || fail "whole trace: perf2bolt-19 wrote no object"
		# the binary's own branches: a source outside it ([unknown]) has
		# no offset, which perf2bolt writes as 0 in one mode and as the
		# raw address's low bits in the other
		grep -v '^0 \[unknown\]' "$T/rw.pd.fdata" | sort >"$T/a"
		grep -v '^0 \[unknown\]' "$T/rw.pa.fdata" | sort >"$T/b"
		[ -s "$T/a" ] && cmp -s "$T/a" "$T/b" ||
			{ diff "$T/a" "$T/b" | head; fail "whole trace: perf2bolt's fdata from perf-data differs from --format bolt's"; }
	fi
elif [ "${CI:-}" = true ]; then
	fail "perf2bolt-19 not installed (scripts/install-deps installs bolt-19)"
fi

# the recording's host description and the build-ids travel along
$PERF report --header-only -i "$T/pt-basic.pd" >"$T/hdr" 2>&1
grep -q '^# arch : x86_64' "$T/hdr" || { cat "$T/hdr"; fail "no arch feature"; }
$PERF buildid-list -i "$T/pt-basic.pd" >"$T/bids" 2>&1
id=$(readelf -n tests/fixtures/programs/bin/branchy-x86_64 | awk '/Build ID/ { print $3 }')
grep -q "^$id /tests/fixtures/programs/bin/branchy-x86_64" "$T/bids" ||
	{ cat "$T/bids"; fail "build-id of the traced binary missing"; }

# nothing is left behind when the output cannot be written
"$SY" convert -q --symfs . --format perf-data -o "$T/no/such/dir/x.data" \
	tests/fixtures/generated/pt-basic.data 2>"$T/err"
[ $? -eq 1 ] || fail "unwritable output: exit status"
grep -q 'no/such/dir/x.data' "$T/err" || fail "unwritable output: message"

# a recording without pause samples (simpleperf's real capture): the
# whole-trace branch-only samples
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_etm.data"
"$SY" convert -q --format perf-data --symfs "$R/symfs" -o "$T/real.pd" \
	"$R/orig/perf_etm.data" || fail "real capture: convert failed"
"$SY" convert -q --format lbr --symfs "$R/symfs" -o "$T/real.lbr" \
	"$R/orig/perf_etm.data"
$PERF script -G -F ip,brstack -i "$T/real.pd" >"$T/real.plbr" 2>"$T/real.err"
[ ! -s "$T/real.err" ] || { cat "$T/real.err"; fail "real capture: perf warned"; }
python3 tests/e2e/perf_data_check.py lbr "$T/real.lbr" "$T/real.plbr" ||
	fail "real capture: perf's branch stacks differ from --format lbr"

# kernel-mode samples: the kernel's and its modules' maps as perf record
# writes them (pid -1); perf warns only that the kernel image is missing
"$SY" convert -q --format perf-data --symfs "$R/symfs" -o "$T/kern.pd" \
	"$R/orig/perf_kernel.data" || fail "kernel capture: convert failed"
"$SY" convert -q --format lbr --symfs "$R/symfs" -o "$T/kern.lbr" \
	"$R/orig/perf_kernel.data"
$PERF script -G -F ip,brstack -i "$T/kern.pd" >"$T/kern.plbr" 2>"$T/kern.err" ||
	{ cat "$T/kern.err"; fail "kernel capture: perf script failed"; }
grep -v 'No kallsyms or vmlinux with build-id' "$T/kern.err" | grep -q . &&
	{ cat "$T/kern.err"; fail "kernel capture: perf warned"; }
python3 tests/e2e/perf_data_check.py lbr "$T/kern.lbr" "$T/kern.plbr" ||
	fail "kernel capture: perf's branch stacks differ from --format lbr"

# AutoFDO: create_llvm_prof reads our perf.data.  Debian 12's (autofdo
# 0.19) reads only DWARF 4, so the fixture program is rebuilt with
# -gdwarf-4 and given the fixture's build-id; its code must be the
# fixture's byte for byte.
require_tool create_llvm_prof
"$SY_BUILD/sy-fixturegen" --scale 20 --no-truth -o "$T" \
	tests/fixtures/scenarios/pt-basic.scn 2>/dev/null || fail "generator failed"
"$SY" convert -q --symfs . --format perf-data -o "$T/afdo.pd" "$T/pt-basic-x20.data" ||
	fail "scaled convert failed"
P=tests/fixtures/programs
mkdir "$T/d4"
(cd "$P" && gcc -O2 -g -gdwarf-4 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-static -nostdlib -fno-stack-protector -fno-asynchronous-unwind-tables \
	-Wl,--build-id -ffile-prefix-map="$(pwd)"=. -fno-tree-loop-distribute-patterns \
	-fno-pie -no-pie -fcf-protection=none -o "$T/d4/b" start-x86_64.S branchy.c) ||
	fail "cannot rebuild the fixture program"
objcopy -O binary -j .text "$T/d4/b" "$T/d4/text.new"
objcopy -O binary -j .text "$P/bin/branchy-x86_64" "$T/d4/text.old"
cmp -s "$T/d4/text.new" "$T/d4/text.old" || skip "this gcc does not rebuild the fixture's code"
objcopy -O binary -j .note.gnu.build-id "$P/bin/branchy-x86_64" "$T/d4/note"
objcopy --update-section .note.gnu.build-id="$T/d4/note" "$T/d4/b" "$T/d4/branchy-x86_64"
create_llvm_prof --binary="$T/d4/branchy-x86_64" --profile="$T/afdo.pd" \
	--out="$T/afdo.txt" --format=text >"$T/afdo.log" 2>&1 ||
	{ cat "$T/afdo.log"; fail "create_llvm_prof failed"; }
for fn in prog_main op_switch apply dispatch_tail; do
	grep -q "^$fn:[1-9]" "$T/afdo.txt" || { head -40 "$T/afdo.txt"; fail "AutoFDO profile lacks $fn"; }
done
exit 0
