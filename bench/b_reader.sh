# Reader throughput on a generated recording, next to `perf report -D` on
# the same file (the peer). Sizes: READER_MB (default 512) for our walk,
# PERF_MB (default 64) for perf, which prints every record.
B=$SY_BUILD/bench/bench_reader
SY=$SY_BUILD/strobe-synth
big=$BENCH_TMP/reader-big.data
small=$BENCH_TMP/reader-small.data
$B gen "$big" "${READER_MB:-512}" || exit 1
$B gen "$small" "${PERF_MB:-64}" || exit 1
cat "$big" >/dev/null # page cache
echo "reader walk + sample parse ($(du -m "$big" | cut -f1) MB):"
$B walk "$big" | sed 's/^/  /'
echo "reader on the perf-sized file ($(du -m "$small" | cut -f1) MB):"
ours=$($B walk "$small")
echo "  $ours"
if command -v perf >/dev/null 2>&1; then
	t0=$(date +%s.%N)
	perf report -D -i "$small" >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo "$ours" | awk -v p="$(echo "$t1 - $t0" | bc)" '{
		printf "  perf report -D: %.2f s; strobe-synth walk: %.4f s; ratio %.0fx faster\n", p, $6, p / $6 }'
	t0=$(date +%s.%N)
	"$SY" dump --stats "$small" >/dev/null
	t1=$(date +%s.%N)
	echo "  strobe-synth dump --stats (CLI, same file): $(echo "$t1 - $t0" | bc) s"
else
	echo "  perf not installed: no peer figure"
fi
