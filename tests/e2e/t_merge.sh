# strobe-synth merge: llvm-profgen 19 builds from the merge of two
# perfscript (and lbr) outputs exactly the profile it builds from the two
# files one after the other; perf2bolt's fdata of merged bolt files equals
# merge-fdata-19 over the fdata of each; a merge of merges equals one merge
# in any order; formats and build-ids that differ are refused (exit 2),
# damaged lines named (exit 4), unreadable inputs exit 3, and a refusal
# leaves no output.
. tests/e2e/lib.sh
require_tool llvm-profgen-19
require_tool perf2bolt-19
require_tool merge-fdata-19
BIN=tests/fixtures/programs/bin/branchy-x86_64
G=tests/fixtures/generated
for fmt in perfscript lbr bolt; do
	for n in pt-basic pt-samples pt-smp; do
		"$SY" convert -q --symfs . --format $fmt -o "$T/$n.$fmt" "$G/$n.data" ||
			fail "$n: convert failed"
	done
done

flags="--format=text --profile-summary-cold-count=0 --csspgo-preinliner=0 --gen-cs-nested-profile=0"
for fmt in perfscript lbr; do
	"$SY" merge -q -o "$T/m.$fmt" "$T/pt-basic.$fmt" "$T/pt-samples.$fmt" ||
		fail "$fmt: merge failed"
	cat "$T/pt-basic.$fmt" "$T/pt-samples.$fmt" >"$T/cat.$fmt"
	for x in m cat; do
		llvm-profgen-19 --perfscript="$T/$x.$fmt" --binary="$BIN" $flags \
			--output="$T/$x.$fmt.prof" >"$T/$x.log" 2>&1 ||
			{ cat "$T/$x.log"; fail "$fmt: llvm-profgen-19 failed on $x"; }
	done
	[ -s "$T/m.$fmt.prof" ] || fail "$fmt: empty profile"
	cmp -s "$T/m.$fmt.prof" "$T/cat.$fmt.prof" ||
		{ diff "$T/cat.$fmt.prof" "$T/m.$fmt.prof" | head; fail "$fmt: merged profile differs"; }
done

# BOLT: perf2bolt over the merged records == merge-fdata over each fdata
mkdir -p "$T/bin"
ln -s "$(readlink -f "$(command -v perf2bolt-19)")" "$T/bin/perf2bolt"
"$SY" merge -q -o "$T/m.bolt" "$T/pt-basic.bolt" "$T/pt-samples.bolt" || fail "bolt merge failed"
for x in m pt-basic pt-samples; do
	"$T/bin/perf2bolt" -pa -p "$T/$x.bolt" -o "$T/$x.fdata" "$BIN" >"$T/$x.p2b" 2>&1 ||
		{ cat "$T/$x.p2b"; fail "perf2bolt failed on $x"; }
done
merge-fdata-19 "$T/pt-basic.fdata" "$T/pt-samples.fdata" >"$T/mf.fdata" 2>"$T/mf.err" ||
	{ cat "$T/mf.err"; fail "merge-fdata-19 failed"; }
grep -v '^no_lbr\|^boltedcollection' "$T/m.fdata" | sort >"$T/a"
grep -v '^no_lbr\|^boltedcollection' "$T/mf.fdata" | sort >"$T/b"
[ -s "$T/a" ] || fail "empty fdata"
cmp -s "$T/a" "$T/b" || { diff "$T/b" "$T/a" | head; fail "merged bolt differs from merge-fdata"; }

# One PIE at two load addresses (issue 23, defect 2: merge wrote the first
# recording's MMAP2 line only, so llvm-profgen read every other recording's
# samples as external code).  llvm-profgen 19 builds from the merge exactly
# the profile it builds from the two files one after the other, each read
# at its own address; bolt records are link-time addresses and add up as
# merge-fdata adds them.  (llvm-profgen's profile of two files is not the
# sum of its two profiles: `cat A A` gives 1201 where 2 x A gives 1202, its
# call-site counts are inferred per run; so the oracle is its one run.)
PIE=tests/fixtures/programs/bin/branchy-aarch64-pie
for n in etm4-etr-pie ete-trbe-pie; do
	for fmt in perfscript lbr bolt; do
		"$SY" convert -q --symfs . --format $fmt -o "$T/$n.$fmt" "$G/$n.data" ||
			fail "$n: convert failed"
	done
done
for fmt in perfscript lbr; do
	a=$T/etm4-etr-pie.$fmt b=$T/ete-trbe-pie.$fmt
	[ "$(grep -c '^PERF_RECORD_MMAP2' "$a" "$b" | cut -d: -f2 | sort -u)" = 1 ] ||
		fail "$fmt: each PIE recording should map the program once"
	grep -q 0xaaaaaaab0000 "$a" && grep -q 0x5500000000 "$b" ||
		fail "$fmt: the two recordings no longer load the PIE at different addresses"
	"$SY" merge -q -o "$T/pie.$fmt" "$a" "$b" || fail "$fmt: PIE merge failed"
	"$SY" merge -q -o "$T/pie-ba.$fmt" "$b" "$a" || fail "$fmt: PIE merge failed"
	cmp -s "$T/pie.$fmt" "$T/pie-ba.$fmt" || fail "$fmt: PIE merge depends on the order"
	"$SY" merge -q -o "$T/pie2.$fmt" "$T/pie.$fmt" || fail "$fmt: merging a merge failed"
	cmp -s "$T/pie.$fmt" "$T/pie2.$fmt" || fail "$fmt: merging a PIE merge alone changes it"
	cat "$a" "$b" >"$T/piecat.$fmt"
	for x in pie piecat; do
		llvm-profgen-19 --perfscript="$T/$x.$fmt" --binary="$PIE" $flags \
			--output="$T/$x.$fmt.prof" >"$T/$x.log" 2>&1 ||
			{ cat "$T/$x.log"; fail "$fmt: llvm-profgen-19 failed on $x"; }
	done
	grep -q 'external frame' "$T/pie.log" &&
		{ cat "$T/pie.log"; fail "$fmt: merged PIE samples read as external code"; }
	[ -s "$T/pie.$fmt.prof" ] || fail "$fmt: empty PIE profile"
	cmp -s "$T/pie.$fmt.prof" "$T/piecat.$fmt.prof" ||
		{ diff "$T/piecat.$fmt.prof" "$T/pie.$fmt.prof" | head; fail "$fmt: merged PIE profile differs"; }
done
"$SY" merge -q -o "$T/pie.bolt" "$T/etm4-etr-pie.bolt" "$T/ete-trbe-pie.bolt" || fail "PIE bolt merge failed"
for x in pie etm4-etr-pie ete-trbe-pie; do
	"$T/bin/perf2bolt" -pa -p "$T/$x.bolt" -o "$T/$x.fdata" "$PIE" >"$T/$x.p2b" 2>&1 ||
		{ cat "$T/$x.p2b"; fail "perf2bolt failed on $x"; }
done
merge-fdata-19 "$T/etm4-etr-pie.fdata" "$T/ete-trbe-pie.fdata" >"$T/pmf.fdata" 2>"$T/mf.err" ||
	{ cat "$T/mf.err"; fail "merge-fdata-19 failed"; }
grep -v '^no_lbr\|^boltedcollection' "$T/pie.fdata" | sort >"$T/a"
grep -v '^no_lbr\|^boltedcollection' "$T/pmf.fdata" | sort >"$T/b"
[ -s "$T/a" ] || fail "empty PIE fdata"
cmp -s "$T/a" "$T/b" || { diff "$T/b" "$T/a" | head; fail "merged PIE bolt differs from merge-fdata"; }

# associative and commutative, byte for byte; -o - and - inputs
for fmt in perfscript lbr bolt; do
	a=$T/pt-basic.$fmt b=$T/pt-samples.$fmt c=$T/pt-smp.$fmt
	"$SY" merge -q -o "$T/ab" "$a" "$b" && "$SY" merge -q -o "$T/ab_c" "$T/ab" "$c" &&
	"$SY" merge -q -o "$T/bc" "$b" "$c" && "$SY" merge -q -o "$T/a_bc" "$a" "$T/bc" &&
	"$SY" merge -q -o "$T/abc" "$a" "$b" "$c" &&
	"$SY" merge -q -o - "$c" - "$a" <"$b" >"$T/cba" || fail "$fmt: merges failed"
	for x in ab_c a_bc cba; do
		cmp -s "$T/abc" "$T/$x" || fail "$fmt: $x differs from one merge"
	done
done

# refusals
expect_status 2 "$SY" merge -q -o "$T/bad" "$T/pt-basic.bolt" "$T/pt-basic.lbr" 2>"$T/err"
grep -q 'pt-basic.lbr: line [0-9]*: .*cannot be merged' "$T/err" || { cat "$T/err"; fail "format message"; }
sed 's/<\([0-9a-f]\)/<f\1/' "$T/pt-samples.perfscript" >"$T/other-build.perfscript"
expect_status 2 "$SY" merge -q -o "$T/bad" "$T/pt-basic.perfscript" "$T/other-build.perfscript" 2>"$T/err"
grep -q 'build-id' "$T/err" || { cat "$T/err"; fail "build-id message"; }
printf 'B 1 2 3 0\nB 1 zz 3 0\n' >"$T/damaged.bolt"
expect_status 4 "$SY" merge -q -o "$T/bad" "$T/pt-basic.bolt" "$T/damaged.bolt" 2>"$T/err"
grep -q 'damaged.bolt: line 2' "$T/err" || { cat "$T/err"; fail "damage message"; }
# a file cut off in the middle of a line, in each format (issue 23: an lbr
# entry cut to "0x400290/0x4002f" was merged as a branch): damaged input,
# named with the line; cut at a line end it is a whole, smaller profile
for f in pt-basic.lbr pt-basic.bolt pt-basic.perfscript; do
	n=$(wc -c <"$T/$f")
	head -c $((n / 2)) "$T/$f" >"$T/cut-$f"
	tail -c 1 "$T/cut-$f" | od -An -c | grep -q '\\n' &&
		head -c $((n / 2 - 1)) "$T/$f" >"$T/cut-$f"
	expect_status 4 "$SY" merge -q -o "$T/bad" "$T/cut-$f" 2>"$T/err"
	grep -q "cut-$f: line [0-9]*: " "$T/err" || { cat "$T/err"; fail "cut $f: no line named"; }
done
head -n 2 "$T/pt-basic.lbr" >"$T/lines.lbr"
"$SY" merge -q -o "$T/lines-out.lbr" "$T/lines.lbr" || fail "two whole lines of an lbr output were refused"
expect_status 3 "$SY" merge -q -o "$T/bad" "$T/no-such-file" 2>"$T/err"
expect_status 2 "$SY" merge -q -o "$T/bad" 2>"$T/err"
[ ! -e "$T/bad" ] || fail "a refused merge left an output"
ls "$T" | grep -q 'bad.tmp' && fail "a temporary file was left"
exit 0
