# Kernel-mode trace (simpleperf's perf_kernel.data, cs-etm:k) with the one
# module that comes with it (rq_stats.ko): the module's branches decode,
# each from a branch instruction of the module laid out as the kernel lays
# it out, direct ones to where the (relocated) instruction says
# (module_branches.py over llvm-objdump-19 -dr); the module is found at
# its recorded path under --symfs and under /lib/modules/<release>; the
# rest of the kernel is reported missing with what to pass.
. tests/e2e/lib.sh
require_tool llvm-objdump-19
R=$SHARED/fixtures/real/simpleperf-etm
require_path "$R/orig/perf_kernel.data"
F=$R/orig/perf_kernel.data
BASE=ffffff99f5896000

"$SY" convert --format lbr --symfs "$R/symfs" -o "$T/k.lbr" "$F" 2>"$T/err" ||
	{ cat "$T/err"; fail "convert failed"; }
python3 tests/e2e/module_branches.py "$T/k.lbr" "$R/orig/rq_stats.ko" $BASE 1000 ||
	fail "module branches disagree with the module"
grep -q 'missing binary \[kernel.kallsyms\]_stext (no kernel image: pass --vmlinux FILE or --kcore DIR)' "$T/err" ||
	{ cat "$T/err"; fail "the missing kernel is not reported with the hint"; }
grep -q 'rq_stats.ko' "$T/err" && { cat "$T/err"; fail "the module is reported missing"; }

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
# --kcore without a kcore: refused with a message
expect_status 3 "$SY" convert -q --kcore "$T" -o "$T/x" "$F" 2>"$T/err"
grep -q 'perf record --kcore' "$T/err" || { cat "$T/err"; fail "kcore message"; }
exit 0
