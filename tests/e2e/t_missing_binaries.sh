# Missing binaries are named one way (issue 23, defect 5): the binary a
# window's reason names, the list `windows` closes with, convert's summary,
# convert's last line and --stats-json are one list, counted by windows.
#  - every binary a window names is in the list, needed by at least the
#    windows that name it (exactly that many where every decode-error
#    window has one error, as in these recordings);
#  - the address a window names lies in a recorded mapping of the binary
#    it names, by perf 6.1's own dump of the recording (report -D), the
#    oracle;
#  - convert prints the same list, in the same order, at -j1 and -j2, and
#    its last line names the list's first binary with its count;
#  - --stats-json lists the same binaries with the same counts.
# On real captures: Intel PT (quipper, per CPU, no binaries) and simpleperf's
# ETM kernel trace (with and without the one module it has).
. tests/e2e/lib.sh
require_tool python3
QD=$SHARED/fixtures/real/quipper-intel-pt
SD=$SHARED/fixtures/real/simpleperf-etm
require_path "$QD/perf.data.intel_pt-4.14"
require_path "$SD/orig/perf_kernel.data"

cat >"$T/check.py" <<'EOF'
import gzip, json, re, sys

wtxt, ctxt, ctxt2, dump = sys.argv[1:5]
sjson = sys.argv[5] if len(sys.argv) > 5 else None
bad = []

# perf 6.1's mappings: path -> [(start, end)]
maps = {}
mre = re.compile(r'PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ .*\]: \S+ (.*)$')
with gzip.open(dump, 'rt', errors='replace') as f:
    for line in f:
        m = mre.search(line)
        if m:
            lo = int(m.group(1), 16)
            maps.setdefault(m.group(3).strip(), []).append((lo, lo + int(m.group(2), 16)))

named = {}
one_error = True
wre = re.compile(r'^\s*\d+\s.*\sdecode-error\s+(\d+) decode errors?, first: .*?'
                 r'(?:\((0x[0-9a-f]+)\) )?at trace byte \d+(?: \(binary (\S+) )?')
with open(wtxt) as f:
    lines = f.read().splitlines()
for line in lines:
    m = wre.match(line)
    if not m:
        continue
    if m.group(1) != '1':
        one_error = False
    path = m.group(3)
    if not path:
        continue
    named[path] = named.get(path, 0) + 1
    addr = int(m.group(2), 16) if m.group(2) else None
    if addr is None:
        bad.append('window names %s without an address: %s' % (path, line))
    elif not any(lo <= addr < hi for lo, hi in maps.get(path, [])):
        bad.append('%#x is in no recorded mapping of %s (perf report -D)' % (addr, path))

lre = re.compile(r'missing binary (\S+) \(.*\): needed by (\d+) windows?')
def listed(text):
    return [(m.group(1), int(m.group(2))) for m in
            (lre.search(l) for l in text.splitlines()) if m]

wl = listed('\n'.join(lines))
c1 = open(ctxt).read()
cl = listed(c1)
cl2 = listed(open(ctxt2).read())
if not wl:
    bad.append('windows lists no missing binary')
for p, n in named.items():
    got = dict(wl).get(p)
    if got is None:
        bad.append('windows names %s for %d windows; its list lacks it' % (p, n))
    elif got < n or (one_error and got != n):
        bad.append('%s: named for %d windows, listed as needed by %d' % (p, n, got))
if cl != wl:
    bad.append('convert lists %s, windows %s' % (cl, wl))
if cl2 != cl:
    bad.append('convert -j1 lists %s, -j2 %s' % (cl, cl2))
last = c1.splitlines()[-1] if c1 else ''
if 'no sample written' in last and cl:
    p, n = cl[0]
    if (p + ' ') not in last or ('needed by %d window' % n) not in last:
        bad.append('last line does not name %s, needed by %d: %s' % (p, n, last))
    for q, _ in cl[1:]:
        if (q + ' ') in last:
            bad.append('last line names %s, not the first listed' % q)
if sjson:
    js = json.load(open(sjson))
    jl = sorted((m['path'], m['windows']) for m in js['missing_binaries'] if m['windows'])
    if jl != sorted(cl):
        bad.append('--stats-json lists %s, the text %s' % (jl, cl))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

# check NAME DUMP ARGS... (the recording last)
check() {
	name=$1 dump=$2
	shift 2
	"$SY" windows "$@" >"$T/w.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { cat "$T/w.txt"; fail "$name: windows exit $rc"; }
	rm -f "$T/s.json"
	"$SY" convert -j 2 --format lbr -o "$T/o.lbr" --stats-json "$T/s.json" "$@" 2>"$T/c.txt"
	rc=$?
	case $rc in 0|5) ;; *) cat "$T/c.txt"; fail "$name: convert exit $rc" ;; esac
	"$SY" convert -j 1 --format lbr -o "$T/o1.lbr" "$@" 2>"$T/c1.txt"
	# (written at exit 0; where a build writes it at exit 5 too, checked
	# then as well)
	js=
	[ $rc -eq 0 ] || [ -s "$T/s.json" ] && js=$T/s.json
	[ -n "$js" ] || [ $rc -eq 5 ] || fail "$name: no --stats-json at exit 0"
	python3 "$T/check.py" "$T/w.txt" "$T/c.txt" "$T/c1.txt" "$dump" $js >"$T/why" ||
		{ cat "$T/w.txt" "$T/c.txt"; cat "$T/why"; fail "$name: the missing binaries are not one list"; }
}

check "quipper PT" "$QD/perf61.report-D.txt.gz" "$QD/perf.data.intel_pt-4.14"
check "perf_kernel" "$SD/reference-perf61/perf_kernel.report-D.txt.gz" \
	"$SD/orig/perf_kernel.data"
check "perf_kernel with rq_stats.ko" "$SD/reference-perf61/perf_kernel.report-D.txt.gz" \
	--symfs "$SD/symfs" "$SD/orig/perf_kernel.data"
# the kernel is the one binary these windows need and the symfs lacks: a
# list that named only modules, or nothing, would pass the checks above.
# Every decode-error window names it (each Trace On into kernel code is a
# stretch of its own, which cannot be read: t_missing_code_windows).
nerr=$(awk '$9 == "decode-error"' "$T/w.txt" | wc -l)
nk=$(grep -c ' decode-error .*(binary \[kernel.kallsyms\]_stext ' "$T/w.txt")
[ "$nerr" -gt 0 ] && [ "$nerr" = "$nk" ] ||
	{ cat "$T/w.txt"; fail "perf_kernel with rq_stats.ko: $nk of $nerr decode-error windows name the kernel"; }
grep -q "missing binary \[kernel.kallsyms\]_stext .*needed by $nerr windows" "$T/c.txt" ||
	{ cat "$T/c.txt"; fail "perf_kernel with rq_stats.ko: the kernel is not needed by its $nerr decode-error windows"; }
exit 0
