#!/bin/sh
# A switch between two threads of one process inside a window must not go
# unnoticed (issue 26, item 1).  The fixtures etm4-etr-mt-switch and
# pt-mt-switch replay mt-{aarch64,x86_64}'s threads, each from its own
# recorded stream: window 0 is resumed and paused in thread 3000, with
# 100 instructions of thread 3001 (same process, same code) between.
#
#  1. The committed fixtures agree with their truth (truth_check): the
#     window is thread-mismatch, the others' stacks are the truth's.
#  2. The same scenarios with the switch hidden from strobe-synth
#     (switch_records = 0, and for ETM context_id = 0): what strobe-synth
#     would do if it ignored the switch.  The check must now fail on that
#     window (ok with the other thread's branches, truth thread-mismatch):
#     the test has teeth.
#  3. Every thread replaying stream 0 (all a truth of one stream allowed
#     before issue 26) gives another sidecar: the committed one really has
#     each thread's own stream.
. tests/e2e/lib.sh

GEN=$SY_BUILD/sy-fixturegen
TC=$SY_BUILD/tests/truth_check
[ -x "$GEN" ] || fail "$GEN not built"
[ -x "$TC" ] || fail "$TC not built (make tools)"
G=tests/fixtures/generated
S=tests/fixtures/scenarios

for n in etm4-etr-mt-switch pt-mt-switch; do
	"$TC" "$G/$n.data" "$G/$n.truth" >"$T/$n.ok" 2>&1 ||
		fail "$n: committed fixture disagrees with its truth: $(tail -3 "$T/$n.ok")"
	grep -q 'thread-mismatch=2 mismatches 0$' "$T/$n.ok" ||
		fail "$n: expected two thread-mismatch windows: $(tail -1 "$T/$n.ok")"

	{
		cat "$S/$n.scn"
		echo "name = $n-hidden"
		echo "switch_records = 0"
		case $n in etm4*) echo "context_id = 0" ;; esac
	} >"$T/$n-hidden.scn"
	"$GEN" -o "$T" "$T/$n-hidden.scn" || fail "$n-hidden: generator failed"
	# the truth is what happened, whatever the file shows
	grep '^pause 1 ' "$T/$n-hidden.truth" | grep -q 'status=thread-mismatch' ||
		fail "$n-hidden: the truth lost the switch"
	expect_status 1 "$TC" "$T/$n-hidden.data" "$T/$n-hidden.truth" \
		>"$T/$n.hidden" 2>&1
	grep -q '^MISMATCH pause 1 .*: ok (.*truth thread-mismatch' \
		"$T/$n.hidden" ||
		fail "$n: a hidden switch was not caught: $(cat "$T/$n.hidden")"

	sed 's/ @[0-9]* mt$/ @0 mt/' "$S/$n.scn" >"$T/$n-one.scn"
	echo "name = $n-one" >>"$T/$n-one.scn"
	"$GEN" -o "$T" "$T/$n-one.scn" || fail "$n-one: generator failed"
	sed '/^fixture /d' "$T/$n-one.truth" >"$T/$n-one.body"
	sed '/^fixture /d' "$G/$n.truth" >"$T/$n.body"
	[ -s "$T/$n.body" ] || fail "$n: empty sidecar"
	if cmp -s "$T/$n-one.body" "$T/$n.body"; then
		fail "$n: one stream for every thread gives the same truth"
	fi
done
echo "ok: switches between threads of one process are in the truth and checked"
