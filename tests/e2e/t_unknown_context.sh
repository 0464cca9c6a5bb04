# The trace's context IDs name a thread the recording does not know (a
# recording made in another pid namespace; issue 11): the fixtures with
# every pid and tid of the recording moved from 1000 to 1500 while the
# trace still says 1000 (tests/remap-tids).  A per-thread recording is
# decoded in each AUX queue's own thread, as perf does, with one note: the
# profile is the original's with the new thread.  A per-CPU one says that
# the context IDs match no process, and exits 5.
. tests/e2e/lib.sh
G=tests/fixtures/generated

tests/remap-tids 1000 1500 "$G/etm4-etr-thread.data" "$T/thread.data" ||
	fail "remap-tids failed"
"$SY" convert --symfs . -o "$T/orig.ps" "$G/etm4-etr-thread.data" 2>/dev/null ||
	fail "the original does not convert"
"$SY" convert --symfs . -o "$T/ns.ps" "$T/thread.data" 2>"$T/err" ||
	{ cat "$T/err"; fail "per-thread: convert failed"; }
[ "$(grep -c "context IDs name threads the recording does not know (e.g. 1000" "$T/err")" -eq 1 ] ||
	{ cat "$T/err"; fail "per-thread: not one note naming the context ID"; }
sed 's#1500/1500#1000/1000#g' "$T/ns.ps" | cmp -s - "$T/orig.ps" ||
	fail "per-thread: the profile is not the original's"

tests/remap-tids 1000 1500 "$G/etm4-etr-basic.data" "$T/cpu.data" ||
	fail "remap-tids failed"
"$SY" convert --symfs . -o "$T/cpu.ps" "$T/cpu.data" 2>"$T/err"
[ $? -eq 5 ] || { cat "$T/err"; fail "per-CPU: expected exit 5"; }
grep -q "context IDs match no process of the recording (e.g. 1000" "$T/err" ||
	{ cat "$T/err"; fail "per-CPU: the cause is not said"; }
exit 0
