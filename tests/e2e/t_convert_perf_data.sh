# convert --format perf-data: a perf.data holding the emitted samples with
# their callchains and synthesized branch stacks.  perf 6.1 reads it
# without a warning; `perf script -G -F ip,brstack` prints exactly the
# samples of --format lbr and `perf script -F ip,brstack` (callchains
# shown) exactly those of --format perfscript (perf_data_check.py), in
# file mode and through a pipe (-o -); create_llvm_prof (AutoFDO) reads it
# and names the fixture's hot functions.
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
	$PERF script --show-mmap-events -F ip,brstack -i "$T/$n.pd" \
		>"$T/$n.phyb" 2>>"$T/$n.err"
	[ ! -s "$T/$n.err" ] || { cat "$T/$n.err"; fail "$n: perf warned"; }
	python3 tests/e2e/perf_data_check.py lbr "$T/$n.lbr" "$T/$n.plbr" ||
		fail "$n: perf's branch stacks differ from --format lbr"
	python3 tests/e2e/perf_data_check.py hybrid "$T/$n.ps" "$T/$n.phyb" ||
		fail "$n: perf's callchains and stacks differ from --format perfscript"
	# pipe layout through a real pipe
	"$SY" convert -q --symfs . --format perf-data -o - "$f" |
		$PERF script -G -F ip,brstack -i - >"$T/$n.pipe" 2>"$T/$n.perr"
	grep -v 'pipe mode is not recommended\|^$' "$T/$n.perr" | grep -q . &&
		{ cat "$T/$n.perr"; fail "$n: perf warned on the pipe"; }
	cmp -s "$T/$n.plbr" "$T/$n.pipe" || fail "$n: pipe and file differ"
	"$SY" convert -q -j 3 --symfs . --format perf-data -o "$T/$n.j3" "$f"
	cmp -s "$T/$n.pd" "$T/$n.j3" || fail "$n: output depends on -j"
done

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
