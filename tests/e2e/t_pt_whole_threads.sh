# e2e: long (minutes; tests/e2e/run starts it first)
# Per-CPU Intel PT without pause samples: each stretch is converted in the
# thread the context switch records (ITRACE_START, SWITCH_CPU_WIDE) say
# ran on its CPU at its start, as perf's intel_pt decoder does.  Every
# generated per-CPU PT fixture whose trace is whole (no window damaged,
# truncated or overflowed), with aux_action cleared (tests/no-pause), is
# converted with --format lbr one thread at a time (--tid), and every
# thread's taken-branch counts must equal those perf 6.1 decodes for that
# thread (`perf script --itrace=b -F tid,ip,addr`, the lines of the
# branches event; 0 => X and X => 0 are perf's trace start and end
# markers, no branches); all threads together must equal perf's total, so
# no branch goes to a thread perf does not know.  No window may be
# decode-error, and each window's pid is its thread's process (the truth's
# thread lines); llvm-profgen 19 builds the SMP program's profile from the
# output.  tests/unit/test_whole_threads.c checks the same
# conversions against the truth.  Without the records that name threads
# (ITRACE_START and SWITCH_CPU_WIDE rewritten as SWITCH, which names none)
# the SMP trace is read in no thread: nothing converts (exit 5) and one
# note says why.
. tests/e2e/lib.sh
require_tool perf
require_tool llvm-profgen-19
export LC_ALL=C

# perf's branches of FILE per thread (THREAD: FROM->TO:COUNT, hex as
# branch_counts.py prints)
perf_counts() {
	perf script -i "$1" --symfs=. --itrace=b -F event,tid,ip,addr \
		2>"$T/perf.err" |
		awk '$2 == "branches:u:" && $3 != "0" && $5 != "0" {
			print $1 ": " $3 "->" $5 }' |
		sort | uniq -c | awk '{ print $2 " " $3 ":" $1 }' | sort
}

# the same summed over the threads (FROM->TO:COUNT)
all_threads() {
	sed 's/^[0-9]*: //' "$1" |
		awk -F: '{ n[$1] += $2 } END { for (b in n) print b ":" n[b] }' |
		sort
}

# ours, the same way: convert --format lbr [--tid TID]
our_counts() {
	f=$1
	shift
	"$SY" convert -q -j 1 --format lbr --symfs . "$@" -o - "$f" |
		python3 tests/e2e/branch_counts.py 0 | sort
}

# per-CPU, file mode, every window's trace whole (sidecar lines); an attr
# perf 6.1 reads (not the first_period fixtures' VER10/11 attr of 136 or
# 160 bytes, which it refuses, as t_fixture_counts.sh says)
whole_per_cpu() {
	! grep -q '^file .*\(mode=pipe\|per_thread=1\)' "$1" &&
		! grep -Eq '^file .*attr_size=(136|160)' "$1" &&
		! grep -q '^window .*status=.*\(decode-error\|truncated\|overflow\)' "$1" &&
		! grep -q '^lost ' "$1"
}

n=0
for truth in tests/fixtures/generated/pt-*.truth; do
	whole_per_cpu "$truth" || continue
	name=$(basename "$truth" .truth)
	n=$((n + 1))
	f=$T/$name.data
	tests/no-pause "tests/fixtures/generated/$name.data" "$f" ||
		fail "cannot rewrite $name"

	"$SY" windows -j 1 --json --symfs . "$f" >"$T/w.json" 2>"$T/err" ||
		{ cat "$T/err"; fail "$name: windows failed"; }
	python3 - "$T/w.json" "$truth" <<-'EOF' ||
		import json, sys
		w = json.load(open(sys.argv[1]))['windows_list']
		pid = {}
		for line in open(sys.argv[2]):
		    if line.startswith('thread '):
		        kv = dict(x.split('=', 1) for x in line.split()[1:])
		        pid[int(kv['tid'])] = int(kv['pid'])
		bad = [x for x in w if x['status'] == 'decode-error' or
		       pid.get(x['tid']) != x['pid']]
		for x in bad[:5]:
		    print('window %d: tid %d pid %d, %s %s' % (x['index'], x['tid'],
		          x['pid'], x['status'], x['reason']), file=sys.stderr)
		sys.exit(1 if bad or not w else 0)
	EOF
		fail "$name: decode-error windows or windows of the wrong process"

	perf_counts "$f" >"$T/perf.cnt"
	[ -s "$T/perf.cnt" ] || { cat "$T/perf.err"; fail "$name: perf decoded no branch"; }
	: >"$T/ours.cnt"
	for tid in $(cut -d: -f1 "$T/perf.cnt" | sort -u); do
		our_counts "$f" --tid "$tid" | sed "s/^/$tid: /" >>"$T/ours.cnt" ||
			fail "$name: convert --tid $tid failed"
	done
	sort -o "$T/ours.cnt" "$T/ours.cnt"
	diff -u "$T/perf.cnt" "$T/ours.cnt" ||
		fail "$name: per-thread branch counts differ from perf 6.1"
	all_threads "$T/perf.cnt" >"$T/perf-all.cnt"
	our_counts "$f" >"$T/ours-all.cnt" || fail "$name: convert failed"
	diff -u "$T/perf-all.cnt" "$T/ours-all.cnt" ||
		fail "$name: branch counts of all threads differ from perf 6.1"
	echo "$name: $(cut -d: -f1 "$T/perf.cnt" | sort -u | wc -l) threads," \
		"$(wc -l <"$T/perf.cnt") distinct branches, as perf 6.1"
done
[ $n -ge 19 ] || fail "only $n fixtures compared"

# what the output is for: llvm-profgen 19 builds an AutoFDO profile of the
# SMP recording's program from it
"$SY" convert -q -j 1 --format lbr --symfs . -o "$T/smp.lbr" "$T/pt-smp.data" ||
	fail "pt-smp: convert failed"
llvm-profgen-19 --perfscript="$T/smp.lbr" \
	--binary=tests/fixtures/programs/bin/branchy-x86_64 --format=text \
	--output="$T/smp.prof" >"$T/profgen.log" 2>&1 ||
	{ cat "$T/profgen.log"; fail "llvm-profgen-19 refused the output"; }
grep -q '^ *[0-9.]*: [1-9][0-9]* op_switch:' "$T/smp.prof" ||
	{ head -20 "$T/smp.prof"; fail "the profile lacks the hot call"; }

# no switch records: the trace names no thread, the recording neither
python3 - "$T/pt-smp.data" "$T/noswitch.data" <<-'EOF' || fail "cannot rewrite pt-smp"
	import struct, sys
	d = bytearray(open(sys.argv[1], 'rb').read())
	off, size = struct.unpack_from('<QQ', d, 40)
	at = off
	while at < off + size:
	    typ, misc, sz = struct.unpack_from('<IHH', d, at)
	    if typ in (12, 15):             # ITRACE_START, SWITCH_CPU_WIDE
	        struct.pack_into('<I', d, at, 14)   # -> SWITCH
	    if typ == 71:                   # AUXTRACE: its payload follows
	        at += struct.unpack_from('<Q', d, at + 8)[0]
	    at += sz
	open(sys.argv[2], 'wb').write(d)
EOF
"$SY" convert -j 1 --format lbr --symfs . -o "$T/ns.lbr" "$T/noswitch.data" 2>"$T/err"
rc=$?
[ $rc -eq 5 ] || { cat "$T/err"; fail "no switch records: exit $rc, not 5"; }
[ "$(grep -c 'no context switch or ITRACE_START record names the' "$T/err")" -eq 1 ] ||
	{ cat "$T/err"; fail "no switch records: not said exactly once"; }
exit 0
