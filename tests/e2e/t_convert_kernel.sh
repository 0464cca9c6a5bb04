# Kernel profiles as a user converts them.
#
# Generated (tests/fixtures/generated/etm4-etr-kernel, cs_etm//k of an
# image that holds a recorded program's code, with ground truth): convert
# --vmlinux writes the kernel threads' samples with their kernel frames and
# the kernel's map line, says nothing about unknown contexts (kernel
# threads have no user maps), and llvm-profgen-19 --kernel builds a
# context-sensitive profile of the image from it; without the image,
# nothing is written (exit 5) and the hint says --vmlinux.
#
# Real (simpleperf's perf_kernel.data, cs-etm:k, with the one module that
# comes with it, rq_stats.ko): the module's branches decode, each from a
# branch instruction of the module laid out as the kernel lays it out,
# direct ones to where the (relocated) instruction says (module_branches.py
# over llvm-objdump-19 -dr); the module is found at its recorded path under
# --symfs and under /lib/modules/<release>; the rest of the kernel is
# reported missing with what to pass.  Against perf 6.1 (module_vs_perf.py,
# the man page's KERNEL AND MODULES): perf maps the module's .text to the
# start of its mapping and reads it unrelocated, so given the module as it
# is it decodes other bytes than code; the trace's own address packets are
# in .text where the kernel put it; given a copy whose .text header points
# where the code really is, perf agrees with us on every branch up to the
# first one from a relocated instruction, where it branches to itself; given
# the module relocated as the kernel does it, perf reports exactly our
# module branches.
. tests/e2e/lib.sh
require_tool llvm-objdump-19
require_tool llvm-readelf-19
require_tool llvm-profgen-19
require_tool perf
require_tool python3

# --- generated: a kernel profile with ground truth ---
K=tests/fixtures/generated/etm4-etr-kernel
VML=$(awk '$1 == "kernel" { print $2 }' "$K.truth")
[ -f "$VML" ] || fail "$K.truth names no kernel image"
"$SY" convert --vmlinux "$VML" -o "$T/gk.ps" "$K.data" 2>"$T/err" ||
	{ cat "$T/err"; fail "convert --vmlinux failed"; }
grep -q 'context IDs' "$T/err" &&
	{ cat "$T/err"; fail "kernel threads taken for unknown contexts"; }
grep -q '^PERF_RECORD_MMAP2 .*\]: r-xp \[kernel.kallsyms\]_text$' "$T/gk.ps" ||
	fail "no map line for the kernel"
# every frame is in the kernel's text (the image at its KASLR offset)
python3 - "$K.truth" "$T/gk.ps" <<'PY' || fail "frames outside the kernel"
import sys
k = next(l.split() for l in open(sys.argv[1]) if l.startswith("kernel "))
f = dict(x.split("=") for x in k[2:])
lo, n = int(f["start"], 16), int(f["len"], 16)
fr = [int(l, 16) for l in open(sys.argv[2]) if l.startswith("\t")]
sys.exit(not fr or any(not lo <= a < lo + n for a in fr))
PY
llvm-profgen-19 --kernel --perfscript="$T/gk.ps" --binary="$VML" \
	--format=text --profile-summary-cold-count=0 --csspgo-preinliner=0 \
	--gen-cs-nested-profile=0 --output="$T/gk.prof" >"$T/pg" 2>&1 ||
	{ cat "$T/pg"; fail "llvm-profgen --kernel refused it"; }
grep -q '^\[_start:[0-9]* @ prog_main' "$T/gk.prof" ||
	{ head "$T/gk.prof"; fail "no context-sensitive kernel profile"; }
expect_status 5 "$SY" convert -o "$T/none" "$K.data" 2>"$T/err"
grep -q 'missing binary \[kernel.kallsyms\]_text (no kernel image: pass --vmlinux FILE or --kcore DIR)' "$T/err" ||
	{ cat "$T/err"; fail "the missing kernel is not reported with the hint"; }

# --- real: simpleperf's capture and its module ---
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_kernel.data"
F=$R/orig/perf_kernel.data
BASE=ffffff99f5896000
MOD=/vendor/lib/modules/rq_stats.ko

"$SY" convert --format lbr --symfs "$R/symfs" -o "$T/k.lbr" "$F" 2>"$T/err" ||
	{ cat "$T/err"; fail "convert failed"; }
python3 tests/e2e/module_branches.py "$T/k.lbr" "$R/orig/rq_stats.ko" $BASE 1000 ||
	fail "module branches disagree with the module"
grep -q 'missing binary \[kernel.kallsyms\]_stext (no kernel image: pass --vmlinux FILE or --kcore DIR)' "$T/err" ||
	{ cat "$T/err"; fail "the missing kernel is not reported with the hint"; }
grep -q 'rq_stats.ko' "$T/err" && { cat "$T/err"; fail "the module is reported missing"; }
# --keep is obeyed without pause samples too (issue 23, defect 6): the five
# windows are decode-error, so --keep ok writes nothing and says so
expect_status 5 "$SY" convert -q --keep ok --format lbr --symfs "$R/symfs" -o "$T/keep.lbr" "$F" 2>"$T/err"
[ ! -e "$T/keep.lbr" ] || fail "--keep ok wrote samples of windows that are not ok"
grep -q 'no sample written' "$T/err" || { cat "$T/err"; fail "--keep ok: no reason given"; }

# perf 6.1 on the same module (perf61-compat: the copy perf 6.1 can read)
P=$R/perf61-compat/perf_kernel.data
require_path "$P"
mkdir "$T/perf"
python3 tests/e2e/module_vs_perf.py copies "$R/orig/rq_stats.ko" "$T/perf" $MOD ||
	fail "module copies"
perf report -D -i "$P" >"$T/perf/packets.txt" 2>/dev/null || fail "perf report -D"
for v in orig unreloc reloc; do
	symfs=$T/perf/$v
	[ $v = orig ] && symfs=$R/symfs
	perf script -i "$P" --symfs="$symfs" --itrace=b \
		-F comm,tid,flags,ip,addr,dso >"$T/perf/$v.txt" 2>/dev/null ||
		fail "perf script ($v)"
done
python3 tests/e2e/module_vs_perf.py check "$T/k.lbr" "$R/orig/rq_stats.ko" \
	$BASE "$T/perf" || fail "the module against perf 6.1 (above)"

# the same module found where a machine keeps its modules
rel=$("$SY" dump --header "$F" 2>/dev/null | sed -n 's/^# os release: //p')
[ -n "$rel" ] || fail "no os release in the recording"
mkdir -p "$T/symfs/lib/modules/$rel/vendor"
cp "$R/orig/rq_stats.ko" "$T/symfs/lib/modules/$rel/vendor/"
"$SY" convert -q --format lbr --symfs "$T/symfs" -o "$T/m.lbr" "$F" ||
	fail "convert with /lib/modules failed"
cmp -s "$T/k.lbr" "$T/m.lbr" || fail "module under /lib/modules/<release> gives other branches"

# the module's samples in the other formats
mkdir "$T/dir"
"$SY" convert -q --format bolt --symfs "$R/symfs" -o "$T/dir" "$F" ||
	fail "bolt convert failed"
[ "$(ls "$T/dir")" = rq_stats.ko.bolt ] || fail "BOLT files: $(ls "$T/dir")"
# in the module's own addresses: .text at 0x1000
grep -q '^B 12ec 1140 1 0$' "$T/dir/rq_stats.ko.bolt" ||
	{ cat "$T/dir/rq_stats.ko.bolt"; fail "no relocated jump in the BOLT records"; }
# --kcore without a kcore: a usage error naming the option (issue 23: it
# was exit 3, the perf.data's name in front)
expect_status 2 "$SY" convert -q --kcore "$T" -o "$T/x" "$F" 2>"$T/err"
grep -q '^strobe-synth: --kcore .*perf record --kcore' "$T/err" || { cat "$T/err"; fail "kcore message"; }
exit 0
