#!/bin/sh
# One address, two codes one after the other (issue 26, the map
# timeline): dlfx (tests/fixtures/programs/dlfx.c) maps dlfxa, runs it,
# unmaps it, maps dlfxb where dlfxa was and runs it; the recordings write
# dlfxb's MMAP2 where it was mapped (tests/fixtures/scenarios/README.md,
# "Objects over time").  For etm4-etr-dlfx, etm4-etr-dlfx-thread, pt-dlfx,
# pt-dlfx-thread, etm4-etr-dlfx-smp (the thread migrating: dlfxb's MMAP2
# written on cpu 1 after cpu 0's pause samples in dlfxb's code; 830f83e,
# which walked the records in file order, read 2 windows in dlfxa's code)
# and ete-trbe-dlfx (one TRBE job holds both objects' windows; 0e1cb9f read
# dlfxa's in dlfxb's code, 5 windows wrong):
#
#  1. every window has the status the truth gives it and every ok window
#     its stacks (truth_check; PT at 1 and 2 threads), and the statuses
#     are the ones the truth has (all ok but a window that ends in a
#     system call, end-mismatch);
#  2. convert writes both MMAP2 lines, at the same address, dlfxb's
#     between the samples of the two times, and every branch of the
#     output that lies in one of the objects is a branch of the object
#     mapped there at that point of the file, going where it says
#     (map_timeline.py, llvm-objdump-19): branches in dlfxa's code before
#     dlfxb's MMAP2, in dlfxb's after it, from each one's functions, some
#     at the same run-time addresses;
#  3. llvm-profgen-19 (an independent oracle) builds from that output a
#     profile of dlfxb-ARCH.so that names dlfxb's functions, without a
#     complaint about ranges that do not fit its code, and from the
#     samples before dlfxb's MMAP2 one of dlfxa-ARCH.so with dlfxa's;
#  4. the same scenarios without dlfxb's MMAP2 (reuse_mmap = 0): the
#     check above must fail (truth_check finds dlfxb's windows read in
#     dlfxa's code), as for a strobe-synth that ignores a later MMAP2 at
#     an address already mapped.
. tests/e2e/lib.sh

GEN=$SY_BUILD/sy-fixturegen
TC=$SY_BUILD/tests/truth_check
[ -x "$GEN" ] || fail "$GEN not built"
[ -x "$TC" ] || fail "$TC not built (make tools)"
require_tool python3
require_tool llvm-objdump-19
require_tool llvm-profgen-19
BIN=tests/fixtures/programs/bin

# profgen PS BINARY OUT: llvm-profgen-19's text profile of BINARY from PS,
# its messages in OUT.log
profgen() {
	llvm-profgen-19 --perfscript="$1" --binary="$2" --format=text \
		--profile-summary-cold-count=0 --csspgo-preinliner=0 \
		--gen-cs-nested-profile=0 --output="$3" >"$3.log" 2>&1
}

# What llvm-profgen says when a sample's ranges do not fit the binary's
# code, or contradict its callchain.
COMPLAINTS='not on instruction boundary|cross function boundaries|too far from range end|match call frame stack|Bogus|Invalid'

# profile_names PROF LOG FN...: the profile has samples in each FN (a
# context or body line "[... FN...]:N" with N > 0) and the log no
# complaint
profile_names() {
	p=$1 l=$2
	shift 2
	if grep -Eq "$COMPLAINTS" "$l"; then
		echo "llvm-profgen complains: $(grep -E "$COMPLAINTS" "$l" | head -3)"
		return 1
	fi
	for fn in "$@"; do
		awk -v f="$fn" '/^\[/ { n = $0; sub(/.*\]:/, "", n); sub(/:.*/, "", n)
			h = $0; sub(/\]:.*/, "", h)
			if (h ~ ("(^\\[| )" f "([.:]|$)") && n + 0 > 0) ok = 1 }
			END { exit !ok }' "$p" ||
			{ echo "no samples of $fn in $p"; return 1; }
	done
}

# check NAME DATA TRUTH ARCH: 1. to 3. above on one recording; a line
# saying what is wrong and status 1 if anything is
check() {
	n=$1 data=$2 truth=$3 a=$4
	for j in 1 2; do
		"$TC" -j "$j" "$data" "$truth" >"$T/$n.tc" 2>&1 || {
			echo "truth_check -j$j: $(grep -c MISMATCH "$T/$n.tc") windows disagree: $(grep MISMATCH "$T/$n.tc" | head -2)"
			return 1
		}
	done
	"$SY" convert -q --symfs . -o "$T/$n.ps" "$data" ||
		{ echo "convert failed"; return 1; }
	la=$(grep -n "^PERF_RECORD_MMAP2 .*/dlfxa-$a.so$" "$T/$n.ps" | cut -d: -f1)
	lb=$(grep -n "^PERF_RECORD_MMAP2 .*/dlfxb-$a.so$" "$T/$n.ps" | cut -d: -f1)
	if [ -z "$la" ] || [ -z "$lb" ] || [ "$la" -ge "$lb" ]; then
		echo "MMAP2 lines of dlfxa (${la:-none}) and dlfxb (${lb:-none})"
		return 1
	fi
	aa=$(sed -n "${la}s/.*\[\(0x[0-9a-f]*\)(.*/\1/p" "$T/$n.ps")
	ab=$(sed -n "${lb}s/.*\[\(0x[0-9a-f]*\)(.*/\1/p" "$T/$n.ps")
	[ "$aa" = "$ab" ] || { echo "dlfxa at $aa, dlfxb at $ab"; return 1; }
	# samples of both times: before dlfxb's MMAP2 and after it
	if ! head -n "$lb" "$T/$n.ps" | grep -q '^ 0x' ||
		! tail -n "+$lb" "$T/$n.ps" | grep -q '^ 0x'; then
		echo "no samples on both sides of dlfxb's MMAP2"
		return 1
	fi
	python3 tests/e2e/map_timeline.py "$T/$n.ps" "$BIN/dlfxa-$a.so" \
		"$BIN/dlfxb-$a.so" >"$T/$n.mt" ||
		{ echo "branches not in the code mapped there: $(head -3 "$T/$n.mt")"; return 1; }
	for want in "dlfxa-$a.so dlfxa_mix dlfxa_round dlfxa_work" \
		"dlfxb-$a.so dlfxb_scan dlfxb_sort dlfxb_work"; do
		# shellcheck disable=SC2086
		set -- $want
		o=$1
		shift
		got=$(awk -v o="$o" '$1 == o && $2 > 0 { print $3 }' "$T/$n.mt")
		for fn in "$@"; do
			case ",$got," in
			*",$fn,"* | *",$fn."*) ;;
			*) echo "no branch of $o's $fn: $(cat "$T/$n.mt")"; return 1 ;;
			esac
		done
	done
	# the same run-time addresses: branches of dlfxa, and later of dlfxb
	[ "$(awk '$1 == "shared" { print $2 }' "$T/$n.mt")" -gt 0 ] ||
		{ echo "no address with branches of both objects: $(cat "$T/$n.mt")"; return 1; }
	profgen "$T/$n.ps" "$BIN/dlfxb-$a.so" "$T/$n.b.prof" ||
		{ echo "llvm-profgen failed: $(cat "$T/$n.b.prof.log")"; return 1; }
	profile_names "$T/$n.b.prof" "$T/$n.b.prof.log" dlfxb_work dlfxb_sort \
		dlfxb_scan || return 1
	head -n "$((lb - 1))" "$T/$n.ps" >"$T/$n.a.ps"
	profgen "$T/$n.a.ps" "$BIN/dlfxa-$a.so" "$T/$n.a.prof" ||
		{ echo "llvm-profgen failed: $(cat "$T/$n.a.prof.log")"; return 1; }
	profile_names "$T/$n.a.prof" "$T/$n.a.prof.log" dlfxa_work dlfxa_round \
		dlfxa_mix || return 1
}

G=tests/fixtures/generated
for f in "etm4-etr-dlfx aarch64 windows 15 statuses ok=14,end-mismatch=1" \
	"etm4-etr-dlfx-thread aarch64 windows 12 statuses ok=12" \
	"etm4-etr-dlfx-smp aarch64 windows 15 statuses ok=14,end-mismatch=1" \
	"ete-trbe-dlfx aarch64 windows 15 statuses ok=14,end-mismatch=1" \
	"pt-dlfx x86_64 windows 17 statuses ok=16,end-mismatch=1" \
	"pt-dlfx-thread x86_64 windows 13 statuses ok=13"; do
	# shellcheck disable=SC2086
	set -- $f
	n=$1 a=$2
	shift 2
	why=$(check "$n" "$G/$n.data" "$G/$n.truth" "$a") || fail "$n: $why"
	grep -qx "$* mismatches 0" "$T/$n.tc" ||
		fail "$n: statuses $(tail -n 1 "$T/$n.tc"), truth: $*"

	# without dlfxb's MMAP2 the same check must fail
	{
		cat "tests/fixtures/scenarios/$n.scn"
		echo "name = $n-nommap"
		echo "reuse_mmap = 0"
	} >"$T/$n-nommap.scn"
	"$GEN" -o "$T" "$T/$n-nommap.scn" >/dev/null || fail "$n-nommap: generator failed"
	if why=$(check "$n-nommap" "$T/$n-nommap.data" "$T/$n-nommap.truth" "$a"); then
		fail "$n: a recording without dlfxb's MMAP2 passes"
	fi
	case "$why" in
	"truth_check -j1: "*" windows disagree: MISMATCH "*"truth ok"*) ;;
	*) fail "$n-nommap: not caught by the comparison with the truth: $why" ;;
	esac
	grep -q '^MISMATCH .*pause ip 0x600000[01]' "$T/$n-nommap.tc" ||
		fail "$n-nommap: no window in dlfxb's code disagrees: $(cat "$T/$n-nommap.tc")"
done
echo "ok: dlfxa's and dlfxb's windows at one address decoded in each one's code; without dlfxb's MMAP2 caught"
