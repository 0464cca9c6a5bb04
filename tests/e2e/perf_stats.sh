# Sourced helpers: per-type record counts from perf and from strobe-synth in
# one comparable form ("NAME COUNT" lines, sorted).

# perf_counts FILE [pipe]: counts from `perf report -D`'s "Aggregated stats",
# minus the ATTR records perf synthesizes itself for cs_etm decoding (they
# are printed at "0@(null)", not read from the file).
perf_counts() {
	if [ "${2:-}" = pipe ]; then
		cat "$1" | perf report -D -i - 2>/dev/null
	else
		perf report -D -i "$1" 2>/dev/null
	fi | awk '
		/^0@\(null\) \[0x[0-9a-f]+\]: event: 64$/ { synth_attr++ }
		/^Aggregated stats/ { on = 1; next }
		on && /^ *[A-Z_0-9]+ events: *[0-9]+/ {
			name = $1; n = $3
			if (name == "ATTR" || name == "TOTAL") n -= synth_attr
			if (n > 0) print name, n
			next
		}
		on { on = 0 }
	' | sort
}

# sy_counts FILE: the same from `strobe-synth dump --stats` (FILE may be -).
sy_counts() {
	"$SY" dump --stats "$1" | awk '$1 != "unknown-type" && $1 != "unknown-id" { print $1, $2 }' | sort
}
