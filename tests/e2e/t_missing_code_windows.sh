#!/bin/sh
# A window whose code cannot be read is a decode-error window, whichever
# window of the trace it is.  Recordings whose binaries are missing: every
# window that is ok with them (as its truth says, test_convert_fixtures)
# ran code, so without them it must be decode-error and name the binary
# it needed; not "empty" (no instruction executed) nor "paused" (the
# resume did not resume trace), which blame the recording.
#
# The bug this catches: the decoders reported unreadable code once per
# gap in the trace.  ETE/TRBE: OpenCSD waits for an address after an
# unreadable one, and the next windows' Trace On reset nothing, so they
# came out empty.  PT: libipt resynchronises at the next PSB only, and the
# trace enables (TIP.PGE) it skipped, each a window's start, said nothing.
# Recordings with missed pauses are left out: there one stretch of trace
# runs through several pause samples, and where its code cannot be read
# only its start is known.
. tests/e2e/lib.sh
require_tool python3

cat >"$T/check.py" <<'PY'
import json, subprocess, sys
sy, names = sys.argv[1], sys.argv[2:]
bad, n = [], 0
def windows(f, extra):
    p = subprocess.run([sy, 'windows', '--json'] + extra + [f],
                       capture_output=True, text=True)
    return json.loads(p.stdout)['windows_list']
for name in names:
    f = 'tests/fixtures/generated/%s.data' % name
    a = windows(f, ['--symfs', '.'])
    b = windows(f, [])
    if len(a) != len(b):
        bad.append('%s: %d windows with its binaries, %d without' % (name, len(a), len(b)))
        continue
    for x, y in zip(a, b):
        if x['status'] != 'ok':
            continue
        n += 1
        if y['status'] != 'decode-error':
            bad.append('%s window %d: %s (%s) without its binary' % (name, x['index'], y['status'], y['reason']))
        elif 'binary' not in y['reason'] and 'no file' not in y['reason']:
            bad.append('%s window %d names no binary: %s' % (name, x['index'], y['reason']))
    if not any(x['status'] == 'ok' for x in a):
        bad.append('%s: no ok window with its binaries' % name)
for b in bad:
    print(b)
print('%d windows checked' % n)
sys.exit(1 if bad else 0)
PY

python3 "$T/check.py" "$SY" \
	etm4-etr-basic etm4-etr-smp etm4-etr-thread etm4-etr-mt-thread \
	etm4-etr-mt-smp ete-trbe-basic ete-trbe-smp ete-trbe-mt-smp \
	ete-trbe-zstd ete-trbe-samples pt-basic pt-smp pt-thread pt-mt-smp \
	pt-zstd pt-samples pt-mt-switch >"$T/out" 2>&1 ||
	fail "windows whose code is missing are not decode-error: $(cat "$T/out")"
echo "ok: $(tail -1 "$T/out"), each decode-error naming its binary"
