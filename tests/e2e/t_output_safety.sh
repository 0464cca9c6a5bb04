# Outputs are safe to name (strobe-synth(1), OUTPUT FILES): only a regular
# file is replaced (temporary file + rename); a device or FIFO is written
# through and stays what it was; a link to a regular file replaces the file
# and keeps the link; "-" is standard output for every output option; an
# output that is the input is refused (exit 2) and the recording is left
# as it was; the outputs of one run appear together or not at all; and
# SIGINT, SIGTERM or SIGHUP leave no temporary file behind, the process
# dying of the signal (128 + N in a shell).  Everything happens inside the
# test's own directory: the device is one the test makes with mknod.
. tests/e2e/lib.sh

G=tests/fixtures/generated
f=$G/etm4-etr-basic.data
[ -e "$f" ] || fail "no generated fixtures"
"$SY" convert -q --symfs . -o "$T/ref.ps" "$f" || fail "plain convert failed"
"$SY" convert -q --symfs . -o "$T/ref2.ps" --stats-json "$T/ref.json" "$f" ||
	fail "convert --stats-json failed"

no_tmp() {
	ls -a "$T" "$T/d" 2>/dev/null | grep -q '\.tmp-' &&
		{ ls -la "$T"; fail "$1: a temporary file was left behind"; }
	return 0
}

# 1. a character device made here (the null device's numbers): written
#    through, still a device afterwards, for -o, --stats-json and --svg
if mknod "$T/null" c 1 3 2>/dev/null; then
	dev="$T/null"
else
	# no mknod (not root, or a container without CAP_MKNOD): a FIFO
	# read by cat is another non-regular target
	echo "note: mknod not permitted here; testing the device case with a FIFO" >&2
	dev=
fi
if [ -n "$dev" ]; then
	expect_status 0 "$SY" convert -q --symfs . -o "$dev" --stats-json "$dev" "$f"
	[ -c "$dev" ] || { ls -l "$dev"; fail "-o DEVICE replaced the device with a regular file"; }
	expect_status 0 "$SY" windows --summary --symfs . --svg "$dev" "$f" >/dev/null
	[ -c "$dev" ] || fail "--svg DEVICE replaced the device"
fi
no_tmp "device"

# 2. a FIFO: the bytes stream through it, the FIFO stays a FIFO
mkfifo "$T/fifo" || fail "mkfifo"
cat "$T/fifo" >"$T/via-fifo.ps" &
reader=$!
expect_status 0 "$SY" convert -q --symfs . -o "$T/fifo" "$f"
wait $reader
[ -p "$T/fifo" ] || fail "-o FIFO replaced the FIFO"
cmp -s "$T/via-fifo.ps" "$T/ref.ps" || fail "-o FIFO: the reader got other bytes than -o FILE"
cat "$T/fifo" >"$T/via-fifo.svg" &
reader=$!
expect_status 0 "$SY" windows --summary --symfs . --svg "$T/fifo" "$f" >/dev/null
wait $reader
grep -q '</svg>' "$T/via-fifo.svg" || fail "--svg FIFO: no SVG came through"
no_tmp "FIFO"

# 3. a symbolic link to a regular file: the file is replaced, the link
#    stays a link
printf 'old\n' >"$T/target.ps"
ln -s target.ps "$T/link.ps"
expect_status 0 "$SY" convert -q --symfs . -o "$T/link.ps" "$f"
[ -L "$T/link.ps" ] || fail "-o LINK replaced the link"
cmp -s "$T/target.ps" "$T/ref.ps" || fail "-o LINK: the link's target was not written"
# a link to nothing: no file to replace, refused with the path named
ln -s nowhere/x.ps "$T/dangling.ps"
expect_status 1 "$SY" convert -q --symfs . -o "$T/dangling.ps" "$f" 2>"$T/err"
grep -q 'dangling.ps' "$T/err" || fail "-o dangling link: path not named"
# a link through /proc (what /dev/stdout is): the descriptor is written
# where it points, appending as the shell opened it, never replaced
ln -s /proc/self/fd/1 "$T/fd1"
printf 'kept\n' >"$T/appended.ps"
"$SY" convert -q --symfs . -o "$T/fd1" "$f" >>"$T/appended.ps" || fail "-o LINK-TO-FD failed"
[ -L "$T/fd1" ] || fail "-o LINK-TO-FD replaced the link"
{ printf 'kept\n'; cat "$T/ref.ps"; } | cmp -s - "$T/appended.ps" ||
	fail "-o LINK-TO-FD: not appended to the shell's file"
no_tmp "link"

# 4. "-" is standard output for --stats-json and --svg; no file named "-"
mkdir "$T/d"
(cd "$T/d" && "$SYA" convert -q --symfs "$OLDPWD" -o out.ps --stats-json - "$OLDPWD/$f" >json) ||
	fail "--stats-json - failed"
[ ! -e "$T/d/-" ] || fail "--stats-json - wrote a file named '-'"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/d/json" ||
	fail "--stats-json -: standard output is not the JSON"
cmp -s "$T/d/out.ps" "$T/ref.ps" || fail "--stats-json -: the profile differs"
(cd "$T/d" && "$SYA" windows --symfs "$OLDPWD" --svg - "$OLDPWD/$f" >svg) ||
	fail "--svg - failed"
[ ! -e "$T/d/-" ] || fail "--svg - wrote a file named '-'"
head -c 5 "$T/d/svg" | grep -q '<?xml' || fail "--svg -: standard output does not start with the SVG"
expect_status 2 "$SY" convert -q --symfs . -o - --stats-json - "$f" >/dev/null 2>"$T/err"
grep -q 'standard output' "$T/err" || fail "-o - --stats-json -: conflict not explained"
expect_status 2 "$SY" windows --json --svg - "$f" >/dev/null 2>/dev/null

# 5. an output that is the input is refused, and the recording stays
cp "$f" "$T/d/perf.data"
sum0=$(cksum <"$T/d/perf.data")
(cd "$T/d" && "$SYA" convert -q --symfs "$OLDPWD" -o perf.data 2>err)
[ $? -eq 2 ] || fail "convert -o perf.data (the default input) did not exit 2"
grep -q 'input' "$T/d/err" || { cat "$T/d/err"; fail "-o = input: no reason given"; }
(cd "$T/d" && "$SYA" convert -q --symfs "$OLDPWD" -o ./perf.data perf.data 2>/dev/null)
[ $? -eq 2 ] || fail "convert -o ./F F did not exit 2"
ln -s perf.data "$T/d/alias.data"
(cd "$T/d" && "$SYA" convert -q --symfs "$OLDPWD" --stats-json alias.data perf.data 2>/dev/null)
[ $? -eq 2 ] || fail "--stats-json naming the input through a link did not exit 2"
(cd "$T/d" && "$SYA" windows --svg perf.data perf.data >/dev/null 2>&1)
[ $? -eq 2 ] || fail "windows --svg naming the input did not exit 2"
[ "$(cksum <"$T/d/perf.data")" = "$sum0" ] || fail "the recording was modified"
expect_status 2 "$SY" convert -q --symfs . -o "$T/same" --stats-json "$T/same" "$f" 2>/dev/null
[ ! -e "$T/same" ] || fail "-o X --stats-json X: something was written"

# 6. all outputs or none: a --stats-json that cannot be written leaves no
#    profile either (and an older profile untouched)
printf 'old\n' >"$T/keep.ps"
expect_status 1 "$SY" convert -q --symfs . -o "$T/keep.ps" --stats-json "$T/no/such/dir/s.json" "$f" 2>"$T/err"
grep -q 's.json' "$T/err" || fail "unwritable --stats-json: path not named"
[ "$(cat "$T/keep.ps")" = old ] || fail "unwritable --stats-json: the profile was replaced anyway"
expect_status 1 "$SY" convert -q --symfs . -o "$T/new.ps" --stats-json "$T/no/such/dir/s.json" "$f" 2>/dev/null
[ ! -e "$T/new.ps" ] || fail "unwritable --stats-json: a profile was left behind"
no_tmp "all-or-none"

# 7. signals: the JSON goes to a FIFO nobody reads, so convert waits in
#    its open with the profile's temporary file written; the signal must
#    remove it and kill convert with that signal
mkfifo "$T/block"
python3 - "$SYA" "$f" "$T" <<'PY' || fail "signal handling (above)"
import glob, os, signal, subprocess, sys, time
sy, f, t = sys.argv[1:]
bad = []
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    out = os.path.join(t, "sig.ps")
    # a shell's background job ignores SIGINT, nohup SIGHUP (and convert
    # leaves a signal ignored at its start ignored): start as a terminal
    # would
    p = subprocess.Popen([sy, "convert", "-q", "--symfs", os.getcwd(), "-o", out,
                          "--stats-json", os.path.join(t, "block"), f],
                         preexec_fn=lambda s=sig: signal.signal(s, signal.SIG_DFL))
    deadline = time.time() + 30
    while not glob.glob(out + ".tmp-*") and time.time() < deadline and p.poll() is None:
        time.sleep(0.02)
    if not glob.glob(out + ".tmp-*"):
        p.kill(); p.wait()
        bad.append("%s: no temporary file to clean up appeared" % sig.name)
        continue
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()
        bad.append("%s: convert did not stop" % sig.name)
        continue
    if rc != -sig:
        bad.append("%s: exit %d, not death by the signal (shell: %d)" % (sig.name, rc, 128 + sig))
    left = glob.glob(out + "*")
    if left:
        bad.append("%s: left %s" % (sig.name, left))
        for x in left:
            os.unlink(x)
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
# the shell sees 128 + N
sh -c '"$1" convert -q --symfs . -o "$2/sh.ps" --stats-json "$2/block" "$3" & p=$!; i=0
	while [ ! -e "$(ls "$2"/sh.ps.tmp-* 2>/dev/null | head -n 1)" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -TERM $p; wait $p; echo $? >"$2/rc"' sh "$SYA" "$T" "$f"
[ "$(cat "$T/rc")" = 143 ] || fail "SIGTERM: the shell saw exit $(cat "$T/rc"), not 143"
no_tmp "signals"
# a closed pipe (issue 23): standard error closed halfway does not stop the
# run, the output is whole and no temporary file is left (20e0247 died of
# SIGPIPE, exit 141, and left out.txt.tmp-PID-0)
G=tests/fixtures/generated
"$SY" convert -q -j2 --symfs . -o "$T/pipe-ref.ps" "$G/etm4-etr-basic.data" ||
	fail "convert failed"
( "$SY" convert -j2 --symfs . -o "$T/pipe.ps" "$G/etm4-etr-basic.data" 2>&1
  echo $? >"$T/pipe-rc" ) | true
[ "$(cat "$T/pipe-rc")" = 0 ] || fail "stderr a closed pipe: exit $(cat "$T/pipe-rc"), not 0"
cmp -s "$T/pipe.ps" "$T/pipe-ref.ps" || fail "stderr a closed pipe: the output is not whole"
# standard output the closed pipe: the write fails, exit 1, one line says so
( "$SY" convert --symfs . -o - "$G/etm4-etr-long.data" 2>"$T/pipe-err"
  echo $? >"$T/pipe-rc" ) | (exec 0<&-; sleep 1)
[ "$(cat "$T/pipe-rc")" = 1 ] || fail "stdout a closed pipe: exit $(cat "$T/pipe-rc"), not 1"
grep -q 'standard output: write: Broken pipe' "$T/pipe-err" ||
	{ cat "$T/pipe-err"; fail "stdout a closed pipe: no message"; }
no_tmp "a closed pipe"
echo "outputs: devices, FIFOs, links, '-', the input, all-or-none, signals and closed pipes handled"
exit 0
