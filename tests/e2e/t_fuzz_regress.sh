# Fuzzer-found inputs (tests/fuzz/regress/): every command ends, with a
# documented exit status (strobe-synth(1)), and names the file when it
# complains.  A hang is a failure (timeout 120 s, far above the
# milliseconds these take).
. tests/e2e/lib.sh

n=0
for f in tests/fuzz/regress/*.data; do
	[ -e "$f" ] || fail "no regression inputs"
	for cmd in convert lbr windows dump; do
		case $cmd in
		convert) set -- convert -q --symfs . -o "$T/out.ps" "$f" ;;
		lbr) set -- convert -q --format lbr --symfs . -o "$T/out.ps" "$f" ;;
		windows) set -- windows --symfs . "$f" ;;
		dump) set -- dump "$f" ;;
		esac
		timeout 120 "$SY" "$@" >/dev/null 2>"$T/err"
		rc=$?
		case $rc in
		0 | 3 | 4 | 5) ;;
		124) fail "$f: $cmd did not end within 120 s" ;;
		*) cat "$T/err" >&2; fail "$f: $cmd exited $rc" ;;
		esac
		if [ -s "$T/err" ] && ! grep -q "$(basename "$f")" "$T/err"; then
			cat "$T/err" >&2
			fail "$f: $cmd complained without naming the file"
		fi
		n=$((n + 1))
	done
done
echo "fuzz regressions: $n runs ended with documented statuses"
exit 0
