# scripts/demo prints the commands it really runs: every "$ ..." line it
# prints, run again by a shell, succeeds and gives the output the demo
# showed after it (the commands a reader copies work as shown).
. tests/e2e/lib.sh

TMPDIR=$T SY_BUILD=$SY_BUILD sh scripts/demo >"$T/demo.out" 2>&1 || { cat "$T/demo.out"; fail "the demo failed"; }
grep '^\$ ' "$T/demo.out" | sed 's/^\$ //' >"$T/cmds"
[ "$(wc -l <"$T/cmds")" -ge 2 ] || { cat "$T/demo.out"; fail "the demo prints no commands"; }
grep -q 'convert --symfs \. -o ' "$T/cmds" || fail "the demo's convert line lacks the --symfs it needs"
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	sh -c "$cmd" >"$T/again.$n" 2>&1 </dev/null || { cat "$T/again.$n"; fail "printed command fails: $cmd"; }
	# what the demo showed for it is what the command prints now
	head -n 3 "$T/again.$n" >"$T/head.$n"
	grep -F -x -f "$T/head.$n" "$T/demo.out" >/dev/null 2>&1 || [ ! -s "$T/head.$n" ] ||
		fail "the output of '$cmd' is not what the demo showed"
done <"$T/cmds"
echo "demo: its $n printed commands run as shown"
exit 0
