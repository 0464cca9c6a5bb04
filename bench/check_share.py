#!/usr/bin/env python3
"""check_share.py PROG CMD...: the share of CMD's CPU time spent in the
window checks, from perf 6.1's profile of that one run (bench/b_checks.sh).

The checks are the code of the files in CHECK_FILES (plausibility, its
memos, validation, jump tables, instruction decode for the checks).  Their
functions are the symbols that CHECK_SYMBOLS matches: the one list, used
by every figure.  perf samples the run (`perf record -F FREQ`, cpu-clock
where the machine has no PMU) and `perf report --no-children` gives each
symbol's self share; the share printed is the sum over the listed symbols.
Time in a library a check calls (libc, capstone) counts as the library's:
the call chains of an -O2 build without frame pointers cannot name the
caller, so the figure is a floor of the checks' cost.  Capstone's own
share is printed next to it: in an ETM convert only the checks call it
(insn.c, validate.c: the instructions they decode, memoised), so there the
checks' cost is the two added; PT's decoder calls it too (pt_blocks.c).

When PROG has line information (-g), every function nm finds defined in
CHECK_FILES must match CHECK_SYMBOLS: one that does not is named on
stderr, so the list cannot fall behind the code unnoticed.

Prints "CHECKS_PCT CAPSTONE_PCT SAMPLES TOP" (TOP: the three largest check
symbols as name=pct,...); exits 0, or perf record's status when it failed
(CMD failing makes perf record fail).  PERF (default perf),
CHECK_SHARE_FREQ (default 2000).
"""
import os
import re
import subprocess
import sys
import tempfile

CHECK_FILES = ('plausible.c', 'pl_memo.c', 'pl_seen.c', 'proven.c',
               'validate.c', 'jump_table.c', 'jump_table_x86.c', 'insn.c')
CHECK_SYMBOLS = re.compile(
    r'^(sy_pl_|sy_plausible_|sy_proven_|sy_validator_|sy_insn_|sy_jt_|'
    r'sy_jtx_)|^(sy_validate|sy_reason|sy_a64_brreg|sy_check_plausible)$')


def base(sym):
    """The function's name without gcc's clone suffix (.isra.0, .part.1)."""
    return sym.split('.', 1)[0]


def unlisted(prog):
    """Functions defined in CHECK_FILES that CHECK_SYMBOLS misses."""
    try:
        out = subprocess.run(['nm', '-l', '--defined-only', prog],
                             capture_output=True, text=True).stdout
    except OSError:
        return []
    miss = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 4 or f[1] not in 'tT':
            continue
        src = f[3].rsplit(':', 1)[0]
        if src.rsplit('/', 1)[-1] in CHECK_FILES and \
                '/synth/' in src and not CHECK_SYMBOLS.search(base(f[2])):
            miss.add(f[2])
    return sorted(miss)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    prog, cmd = sys.argv[1], sys.argv[2:]
    perf = os.environ.get('PERF', 'perf')
    freq = os.environ.get('CHECK_SHARE_FREQ', '2000')
    for m in unlisted(prog):
        print('check_share: %s is defined in a check file but not in '
              'CHECK_SYMBOLS' % m, file=sys.stderr)
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, 'perf.data')
        rec = subprocess.run([perf, 'record', '-q', '-F', freq, '-o', data,
                              '--'] + cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        if rec.returncode != 0 or not os.path.exists(data):
            sys.stderr.write(rec.stderr.decode(errors='replace'))
            print('- - 0 -')
            return rec.returncode or 1
        rep = subprocess.run([perf, 'report', '-i', data, '--stdio',
                              '--no-children', '--sort', 'dso,sym',
                              '-F', 'overhead,sample,dso,sym',
                              '--percent-limit', '0'],
                             capture_output=True, text=True)
    checks, capstone, samples, per = 0.0, 0.0, 0, {}
    row = re.compile(r'^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+\[.\]\s+(\S+)')
    for line in rep.stdout.splitlines():
        m = row.match(line)
        if not m:
            continue
        pct, n, dso, sym = float(m[1]), int(m[2]), m[3], m[4]
        samples += n
        if 'capstone' in dso:
            capstone += pct
        if CHECK_SYMBOLS.search(base(sym)):
            checks += pct
            per[base(sym)] = per.get(base(sym), 0.0) + pct
    top = sorted(per.items(), key=lambda kv: -kv[1])[:3]
    print('%.2f %.2f %d %s' % (checks, capstone, samples,
          ','.join('%s=%.2f' % kv for kv in top) or '-'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
