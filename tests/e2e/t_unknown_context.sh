# The trace's context IDs name a thread the recording does not know (a
# recording made in another pid namespace; issue 11): the fixtures with
# every pid and tid of the recording moved from 1000 to 1500 while the
# trace still says 1000 (tests/remap-tids).  A per-thread recording is
# decoded in each AUX queue's own thread, as perf does, with one note: the
# profile is the original's with the new thread.  A per-CPU one (issue
# 27, bug 3: it wrote nothing, exit 5) is read as the one thread every
# sample on the CPU names, with one note: the profile is the original's
# with the new thread.  Where a CPU ran several threads nothing is guessed:
# those windows' code is not read, and every sample written is one the
# original recording gives too.
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
"$SY" convert --symfs . -o "$T/cpu-orig.ps" "$G/etm4-etr-basic.data" 2>/dev/null ||
	fail "the original does not convert"
"$SY" convert --symfs . -o "$T/cpu.ps" "$T/cpu.data" 2>"$T/err" ||
	{ cat "$T/err"; fail "per-CPU: convert failed"; }
[ "$(grep -c "context IDs name threads the recording does not know (e.g. 1000.*one thread every sample on their CPU names (e.g. in pid 1500)" "$T/err")" -eq 1 ] ||
	{ cat "$T/err"; fail "per-CPU: not one note naming the context ID and the process"; }
sed 's#1500/1500#1000/1000#g' "$T/cpu.ps" | cmp -s - "$T/cpu-orig.ps" ||
	fail "per-CPU: the profile is not the original's"

# two CPUs, one of them running threads of two processes: no guess there
tests/remap-tids 1000 1500 "$G/etm4-etr-smp.data" "$T/smp1.data" &&
	tests/remap-tids 2000 2500 "$T/smp1.data" "$T/smp.data" || fail "remap-tids failed"
"$SY" convert --symfs . --format lbr -o "$T/smp-orig.lbr" "$G/etm4-etr-smp.data" 2>/dev/null ||
	fail "the SMP original does not convert"
"$SY" convert --symfs . --format lbr -o "$T/smp.lbr" --stats-json "$T/smp.json" "$T/smp.data" 2>"$T/err"
grep -q "their code cannot be read where samples name several threads on a CPU" "$T/err" ||
	{ cat "$T/err"; fail "SMP: the cause is not said"; }
grep -q '"ok": 3,' "$T/smp.json" || { cat "$T/smp.json"; fail "SMP: expected the 3 windows of the known thread only"; }
grep -v '^PERF_RECORD' "$T/smp.lbr" | grep -v '^[0-9]*$' | sort -u >"$T/got"
grep -v '^PERF_RECORD' "$T/smp-orig.lbr" | grep -v '^[0-9]*$' | sort -u >"$T/all"
[ -s "$T/got" ] && [ -z "$(comm -23 "$T/got" "$T/all")" ] ||
	fail "SMP: a sample the original recording does not give"
exit 0
