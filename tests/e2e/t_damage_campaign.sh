# e2e: long (minutes; tests/e2e/run starts it first)
# The damage campaign of issue 14, kept: seeded mutants of generated
# fixtures and real captures (tests/damage/mutate.py: AUX payload bit flips
# and byte overwrites, record header and body damage, attrs, features, the
# file header, truncations, duplicated and moved samples) through
# strobe-synth convert, each compared with the undamaged file's output by
# tests/damage/campaign.py, which fails on any of:
#   - a signal death, a hang (20 s), an exit status outside {0, 3, 4, 5};
#   - a duplicated or moved sample that is not reported by exactly one line
#     naming the file and the record's offset, or an unknown-sample_type attr
#     not reported once at the attr;
#   - a sample, after a duplicated or moved record, that the undamaged file
#     does not give;
#   - more samples carrying a branch the undamaged file never has (a
#     fabricated sample) than the figure measured with the plausibility
#     checks (below).
#
# The fabricated figures are measured, not wished for: ETM and PT carry no
# checksum, and some damage makes a path that every static check accepts (a
# jump-table branch to another case of the same switch, an indirect call to
# another function's entry, a syscall that seems to return elsewhere); and
# with --format lbr (no pause samples) a window that ends in a decode error
# still gives its branches, so a damaged last address before the error is
# kept.  With the same mutants, strobe-synth before the checks (18373c4)
# gives 6 and 25 fabricated samples, and neither reports the duplicated or
# moved samples nor the attrs once.  The checks at 20e0247 gave 0 and 6,
# four of them caught only by rules that also refuse correct programs
# (issue 27: a jump into another function, a return or jump past the open
# calls, a target on a no-op).  With only sound rules pt-thread at 2965 =
# 0xd5 (seed 14: an x86 jump table's jump to a no-op) gets through, counted
# as suspect; with seed 15 three such (ete-trbe-basic at 3277 bit 1,
# ete-trbe-smp at 4111 bit 7, pt-thread at 3621 bit 5: a function-pointer
# table's call or tail call to another entry or a return address) get
# through and three others are now caught by the A64 jump table's entries
# (read from read-only code, bounded by the code's own cmp / b.ls).
# "Return not after a call" is no longer a reason (the corpus's cxxexc,
# issue 26: the C++ unwinder's exit returns to landing pads no call
# precedes, and 224 of 1065 windows of that correct program were
# rejected): it is suspect only, and the same mutants now fabricate 2
# (seed 14), 12 (seed 15) and 109 samples in 89 flips (seed 27) where it
# caught 1, 6 and 53 in 43.  A false alarm loses a correct program's
# samples; these bounds are that measurement, not a target.
# The generator then learnt that a jump, call or return to the next
# instruction is taken (an E atom and, if indirect, its address, as a
# trace unit sends it; it had sent an N atom), and the decoders that an
# unconditional branch not taken is no execution of the code
# (SY_DEC_ERR_DISAGREE).  The regenerated fixtures are other inputs: the
# checks before that rule (1896294) give 2, 13 and 105 samples (84 flips)
# on them, with it 2, 13 and 99 (80 flips).
# The ETM decoders then learnt the trace unit's packet order (etm_agree.c:
# an address packet only after an indirect branch, an exception, a Trace On
# or a sync; no atom while an indirect branch's target is due; a sync's
# address where the path is): a flip that sends the walk down another path
# is mostly caught where the trace next says where execution was
# (SY_DEC_ERR_PATH, the window a decode-error).  c2422ae gives 2, 13 and
# 99 (80 flips), with the rule 2, 8 and 55 (47 flips: 20 ETM, the rest PT),
# and with the whole trace's decode-error windows checked too (below) 2, 7
# and 52 (44 flips: 17 ETM, 27 PT).  x86 jump and call tables read as the
# A64 ones are (jump_table_x86.c: `cmp $N; ja` or `and $M` bounding the
# index of `jmp *TAB(,I,8)`, `call *TAB(,I,8)` or PIE's `movslq` table in
# read-only data) then catch the x86 switch jumps and function-pointer
# calls sent to another address: 1, 4 and 42 (35 flips: 17 ETM, 18 PT);
# pt-thread at 2965 (seed 14) is one of them.  An x86 indirect branch into
# the middle of the no-op padding after a function (plausible.c,
# sy_pl_boundary_after: one bit of a TIP's address moves apply's table
# call from op_add's entry, 0x401220, to 0x401228, inside the 11-byte nopw
# before op_mul) is then refused as one into a function's instruction is:
# 1, 3 and 39 (32 flips: 17 ETM, 15 PT).
. tests/e2e/lib.sh
require_tool python3
need_shared=
[ "${CI:-}" = "true" ] && need_shared=--require-shared

# every kind in turn: 360 mutants of 12 inputs
python3 tests/damage/campaign.py --sy "$SY" --shared "$SHARED" $need_shared \
	--seed 14 --per-input 30 --max-fabricated 1 ||
	fail "damage campaign (all kinds) failed (above)"
# the trace itself: 480 AUX payload bit flips and byte overwrites
python3 tests/damage/campaign.py --sy "$SY" --shared "$SHARED" $need_shared \
	--seed 15 --per-input 40 --kinds payload-flip,payload-byte \
	--max-fabricated 3 ||
	fail "damage campaign (AUX payload) failed (above)"
# the issue-27 size: 3,000 AUX bit flips over the 12 inputs (about 20 s).
# Measured: 20e0247 lets 34 flips (51 samples) fabricate an edge, the
# sound rules alone 64 (86), with the jump-table entries 43 (53), without
# the return rule (above) 89 (109), with the packet order 47 (55), the
# whole trace's decode-error windows checked 44 (52), with x86 tables 35
# (42), with the padding after a function 32 (39), with the source of each
# ETM taken branch checked against the code 31 (38): the
# bound is that measurement, far from the 0.2% (6 flips) issue 27 asks
# The 3,000 flips measure a figure of the code (fabricated samples), the
# same in every build: under a sanitizer (SY_SAN, set by make asan) they
# take 20 minutes and find nothing the 840 mutants above and the fuzzers
# do not, so `make check` measures them once, unsanitized.
if [ -z "${SY_SAN:-}" ]; then
python3 tests/damage/campaign.py --sy "$SY" --shared "$SHARED" $need_shared \
	--seed 27 --per-input 250 --kinds payload-flip --max-fabricated 38 ||
	fail "damage campaign (3,000 AUX bit flips) failed (above)"
# the same flips with --drop-suspect, the user's choice of precision over
# recall: 2 flips (4 samples) fabricate, 0.07%.  Of the 35 flips above, 29
# sent a return or an indirect branch somewhere correct code may also go
# (a return to an address that follows no call, as the C++ unwinder's
# exit to a landing pad does; an indirect call away from any function's
# entry): their windows are suspect, kept by default and dropped by the
# option.  Measured on 71ed210 plus the option: 6 flips (8 samples); with
# the padding after a function (above), 3 flips (5 samples); with the
# source of each taken branch checked, 2 flips (4 samples).
python3 tests/damage/campaign.py --sy "$SY" --shared "$SHARED" $need_shared \
	--seed 27 --per-input 250 --kinds payload-flip \
	--convert-opt=--drop-suspect --max-fabricated 4 ||
	fail "damage campaign (3,000 AUX bit flips, --drop-suspect) failed (above)"
fi
# one implausible window as a user meets it: one bit of etm4-etr-basic's
# trace flipped sends op_switch's jump-table branch (0x4002e0) into
# report (0x400734), and the window still starts at its resume and stops
# at its pause sample; the table's entries are sign-extended bytes
# (`add x2, x0, w2, sxtb #2` after `adr x0, 0x4002e4`), so no value
# reaches further than 0x4002e4 - 512 .. 0x4002e4 + 508.  (The flip this
# test used before, byte 3258 bit 1, sent the same branch into report's
# epilogue, 0x400748; the packets after it contradict that path, so it is
# now a decode error at the trace's next address, checked below.)
G=tests/fixtures/generated
# flip_of IN OUT BYTE BIT: IN with one bit flipped, as OUT; flip: of
# etm4-etr-basic
flip_of() {
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[int(sys.argv[3])] ^= 1 << int(sys.argv[4])
open(sys.argv[2], "wb").write(d)
PY
}
flip() {
	flip_of "$G/etm4-etr-basic.data" "$@"
}
flip "$T/flip.data" 3245 1
flip "$T/order.data" 3258 1
"$SY" windows --symfs . "$G/etm4-etr-basic.data" | grep -q '^ *2 .* ok *$' ||
	fail "window 2 of the undamaged file is not ok"
"$SY" windows --symfs . "$T/order.data" >"$T/w.txt" || fail "windows failed on the flipped file"
grep -q "^ *2 .*decode-error  *1 decode error, first: trace and code disagree: the packets' order does not fit the code's branches (damaged trace, or not the binary that ran) at trace byte 683\$" "$T/w.txt" ||
	{ cat "$T/w.txt"; fail "window 2 (byte 3258 flipped) is not a decode error with its reason"; }
"$SY" windows --symfs . "$T/flip.data" >"$T/w.txt" || fail "windows failed on the flipped file"
grep -q '^ *2 .*implausible *indirect jump outside its table.s reach: 0x4002e0 -> 0x400734, its entries reach 0x4000e4\.\.0x4004e0$' "$T/w.txt" ||
	{ cat "$T/w.txt"; fail "window 2 is not implausible with its reason"; }
grep -q 'bogus-sample rate 20.00%' "$T/w.txt" || fail "windows: no bogus-sample rate"
"$SY" convert --symfs . -o "$T/ok.ps" --stats-json "$T/s.json" "$T/flip.data" 2>"$T/err" ||
	fail "convert failed on the flipped file"
grep -q '1 implausible window' "$T/err" || { cat "$T/err"; fail "convert summary: no implausible count"; }
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["by_status"]["implausible"] == 1 and j["by_status"]["ok"] == 4, j["by_status"]
assert abs(j["bogus_sample_rate"] - 0.2) < 1e-9, j["bogus_sample_rate"]' "$T/s.json" ||
	fail "--stats-json: implausible count or bogus-sample rate wrong"
"$SY" convert -q --symfs . --keep ok,implausible -o "$T/all.ps" "$T/flip.data" ||
	fail "convert --keep ok,implausible failed"
grep -q '0x4002e0/0x400734/' "$T/ok.ps" && fail "the implausible branch was emitted by default"
grep -q '0x4002e0/0x400734/' "$T/all.ps" || fail "--keep implausible did not emit the window"
[ "$(grep -c '^ 0x' "$T/all.ps")" -eq $(($(grep -c '^ 0x' "$T/ok.ps") + 1)) ] ||
	fail "--keep implausible: not exactly one more sample"

# the same on Intel PT: bit 3 of byte 3214 of pt-basic moves a TIP's
# address, apply's table call, from op_add's entry (0x401220) into the
# middle of the 11-byte nopw that pads op_add (5 bytes) up to op_mul
# (0x401230); no symbol covers 0x401228, but decoded from op_add's end the
# padding's no-ops start at 0x401225 only (sy_x86_boundary).  Before that
# rule the window was ok and its sample carried the edge.
flip_of "$G/pt-basic.data" "$T/ptpad.data" 3214 3
"$SY" windows --symfs . "$T/ptpad.data" >"$T/w.txt" || fail "windows failed on the PT flip"
grep -q '^ *4 .*implausible *indirect branch into an instruction: 0x4012ac -> 0x401228$' "$T/w.txt" ||
	{ cat "$T/w.txt"; fail "PT: the call into the padding after op_add is not implausible"; }
"$SY" convert -q --symfs . -o "$T/ptpad.ps" "$T/ptpad.data" ||
	fail "convert failed on the PT flip"
grep -q '0x4012ac/0x401228/' "$T/ptpad.ps" && fail "PT: the call into the padding was emitted by default"
"$SY" convert -q --symfs . --keep ok,implausible -o "$T/ptpad.ps" "$T/ptpad.data" ||
	fail "convert --keep ok,implausible failed on the PT flip"
grep -q '0x4012ac/0x401228/' "$T/ptpad.ps" || fail "PT: --keep implausible did not emit the window"

# --drop-suspect as a user meets it: bit 2 of byte 3679 of etm4-etr-basic
# moves a return's target from 0x400720 (after `bl put_dec`) to 0x400724,
# which follows no call; correct code may return there too (an unwinder's
# landing pad), so the window stays ok and is only suspect: kept by
# default, dropped with --drop-suspect, and said so
flip "$T/susp.data" 3679 2
"$SY" convert --symfs . -o "$T/susp.ps" "$T/susp.data" 2>"$T/err" ||
	fail "convert failed on the suspect flip"
grep -q '0x400208/0x400724/' "$T/susp.ps" || fail "the suspect window was not kept by default"
grep -q '1 window with a suspect branch (unusual code or damage; kept)' "$T/err" ||
	{ cat "$T/err"; fail "convert summary: no kept suspect window"; }
# which window, and why: its line, its JSON, and convert -v's note
"$SY" windows --symfs . "$T/susp.data" >"$T/w.txt" || fail "windows failed on the suspect flip"
grep -q '^ *4 .* ok *suspect: return to no call site: 0x400208 -> 0x400724$' "$T/w.txt" ||
	{ cat "$T/w.txt"; fail "windows: the suspect window does not say why"; }
"$SY" windows --json --symfs . "$T/susp.data" >"$T/w.json" || fail "windows --json failed"
python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["windows_list"]
s = [(x["index"], x["suspect"], x["suspect_reason"]) for x in w if x["suspect"]]
assert s == [(4, 1, "return to no call site: 0x400208 -> 0x400724")], s
assert all(x["suspect_reason"] == "" for x in w if not x["suspect"])' "$T/w.json" ||
	fail "windows --json: suspect or suspect_reason wrong"
"$SY" convert --drop-suspect --symfs . -o "$T/drop.ps" --stats-json "$T/s.json" \
	"$T/susp.data" 2>"$T/err" || fail "convert --drop-suspect failed"
grep -q '0x400208/0x400724/' "$T/drop.ps" && fail "--drop-suspect emitted the suspect window"
grep -q '1 window with a suspect branch (unusual code or damage; --drop-suspect dropped 1)' "$T/err" ||
	{ cat "$T/err"; fail "convert --drop-suspect summary: no dropped count"; }
"$SY" convert -v --drop-suspect --symfs . -o "$T/drop.ps" "$T/susp.data" 2>"$T/err" ||
	fail "convert -v --drop-suspect failed"
grep -q 'window 4 (cpu 0, tid 1000) not converted: suspect (--drop-suspect): return to no call site: 0x400208 -> 0x400724$' "$T/err" ||
	{ cat "$T/err"; fail "convert -v --drop-suspect: no note of the dropped window"; }
[ "$(grep -c '^ 0x' "$T/drop.ps")" -eq $(($(grep -c '^ 0x' "$T/susp.ps") - 1)) ] ||
	fail "--drop-suspect: not exactly one sample fewer"
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert j["suspect_windows"] == 1 and j["suspect_dropped"] == 1, j' "$T/s.json" ||
	fail "--stats-json: suspect_dropped wrong"
# its cost: a correct program whose every window makes an unusual but
# legal move (oddflow: longjmp, a hand-written context switch, returns
# past open calls) loses them all, and the run says why and exits 5
"$SY" convert -q --symfs . -o "$T/odd.ps" "$G/etm4-etr-oddflow.data" ||
	fail "convert failed on etm4-etr-oddflow"
"$SY" convert --drop-suspect --symfs . -o "$T/odd.ps" "$G/etm4-etr-oddflow.data" 2>"$T/err"
[ $? -eq 5 ] || fail "--drop-suspect dropping every window does not exit 5"
grep -q 'no sample written: --drop-suspect dropped every window that would have been converted (26 with a suspect branch' "$T/err" ||
	{ cat "$T/err"; fail "--drop-suspect: no line saying why nothing was written"; }

# the whole trace (no pause samples, --format lbr) writes a decode-error
# window's branches as perf script does, so they get the checks too: one
# bit of etm4-etr-basic recorded without pauses sends a return to
# 0x408720, in no executable mapping, right before the decode error there
# (5416f5a wrote 0x400208 -> 0x408720)
python3 tests/no-pause "$G/etm4-etr-basic.data" "$T/np.data" || fail "no-pause"
flip_of "$T/np.data" "$T/npflip.data" 2631 6
"$SY" windows --symfs . "$T/npflip.data" >"$T/w.txt" || fail "windows failed on the no-pause flip"
grep -q '^ *0 .*implausible *branch target outside executable mappings: 0x400208 -> 0x408720$' "$T/w.txt" ||
	{ cat "$T/w.txt"; fail "whole trace: the decode-error window is not implausible"; }
"$SY" convert -q --format lbr --symfs . -o "$T/np.lbr" "$T/npflip.data" ||
	fail "convert --format lbr failed on the no-pause flip"
grep -q '0x400208/0x408720/' "$T/np.lbr" && fail "whole trace: the branch outside the mappings was written"
"$SY" convert -q --format lbr --symfs . --keep ok,implausible -o "$T/np.lbr" "$T/npflip.data" ||
	fail "convert --keep ok,implausible failed on the no-pause flip"
grep -q '0x400208/0x408720/' "$T/np.lbr" || fail "whole trace: --keep implausible did not write the window"

# an x86 switch as a user meets it: one bit of pt-basic's trace sends
# op_switch's `jmp *0x402000(,%rdi,8)` (after `cmp $0xb,%edi; ja`) to
# 0x4011f8, which none of the table's 12 entries holds (5416f5a: ok)
python3 - "tests/fixtures/generated/pt-basic.data" "$T/ptflip.data" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[2427] ^= 1 << 3
open(sys.argv[2], "wb").write(d)
PY
"$SY" windows --symfs . "$T/ptflip.data" >"$T/w.txt" || fail "windows failed on the PT flip"
grep -q '^ *0 .*implausible *indirect jump to no entry of its table: 0x40117b -> 0x4011f8$' "$T/w.txt" ||
	{ cat "$T/w.txt"; fail "PT: the switch jump to no entry is not implausible"; }

# a damaged attr (bits no kernel defines in sample_type): one line, at the
# attr, from convert and from dump, not one per sample
python3 - "$G/etm4-etr-basic.data" "$T/attr.data" <<'PY' || fail "no attr"
import sys
sys.path.insert(0, "tests/damage")
import perfdata
d = bytearray(open(sys.argv[1], "rb").read())
a = perfdata.PerfData(bytes(d)).attrs[2]
d[a.off + 24 + 7] |= 0x40
open(sys.argv[2], "wb").write(d)
PY
off=$(python3 -c 'import sys; sys.path.insert(0, "tests/damage"); import perfdata
print(perfdata.PerfData(open(sys.argv[1], "rb").read()).attrs[2].where)' "$T/attr.data")
for cmd in "convert -q --symfs . -o $T/attr.ps" "dump"; do
	$SY $cmd "$T/attr.data" >/dev/null 2>"$T/err"
	[ $? -eq 4 ] || fail "$cmd: damaged attr does not exit 4"
	# (convert may add why nothing was written: the pause samples were
	# the damaged attr's)
	[ "$(grep -c "unknown sample_type" "$T/err")" -eq 1 ] && grep -q "attr.data: offset $off: attr 2: unknown sample_type" "$T/err" ||
		{ cat "$T/err"; fail "$cmd: not one line at the attr (offset $off)"; }
done

[ -e "$SHARED/fixtures/real/simpleperf-etm/orig/perf_etm.data" ] ||
	skip "$SHARED/fixtures/real not found: the generated fixtures passed, the real captures were left out"
exit 0
