# e2e: long (minutes; tests/e2e/run starts it first)
# The README's fleet recipe on a real multi-host engine (issue 23): GNU
# parallel with --sshloginfile sends the converts to two sshd instances
# this test starts on loopback ports (its own host and user keys, all in
# its temporary directory), transfers each recording, returns each output
# and cleans up, then merges the outputs in a tree on those hosts.  The
# result must equal, byte for byte, one local merge of locally converted
# outputs, and every returned output the local convert of its recording;
# the recordings include one PIE at two load addresses.  Both hosts must
# have run jobs (their ports, from SSH_CONNECTION).  No network beyond
# loopback.
. tests/e2e/lib.sh
require_tool parallel
require_tool ssh
require_tool ssh-keygen
require_tool rsync
require_tool llvm-profgen-19
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] || skip "sshd (openssh-server) not installed"

ROOT=$(pwd)
G=$ROOT/tests/fixtures/generated
mkdir -p "$T/keys" "$T/local" "$T/work/runs" "$T/remote"
ssh-keygen -q -t ed25519 -N '' -f "$T/keys/host" || fail "host key"
ssh-keygen -q -t ed25519 -N '' -f "$T/keys/user" || fail "user key"
cp "$T/keys/user.pub" "$T/keys/authorized_keys"
chmod 600 "$T/keys/authorized_keys"
# sshd as root wants its privilege separation directory
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd

# A free port for each host: bind, and keep the first that works.  The
# daemons are stopped by their pid files (start_sshd runs in a subshell).
cleanup() {
	for f in "$T"/keys/sshd_*.pid; do
		[ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
start_sshd() {	# NAME -> prints the port
	for port in $(shuf -i 20000-60000 -n 20); do
		cat >"$T/keys/sshd_$1" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $T/keys/host
AuthorizedKeysFile $T/keys/authorized_keys
PidFile none
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PrintMotd no
AcceptEnv LANG LC_*
EOF
		# not on our stdout: $(start_sshd) waits for it to close
		"$SSHD" -D -e -f "$T/keys/sshd_$1" >/dev/null 2>"$T/keys/sshd_$1.log" &
		pid=$!
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			grep -q "Server listening" "$T/keys/sshd_$1.log" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		if grep -q "Server listening" "$T/keys/sshd_$1.log"; then
			echo "$pid" >"$T/keys/sshd_$1.pid"
			echo "$port"
			return 0
		fi
		kill "$pid" 2>/dev/null
	done
	cat "$T/keys/sshd_$1.log" >&2
	return 1
}
p1=$(start_sshd h1) || fail "sshd h1 did not start"
p2=$(start_sshd h2) || fail "sshd h2 did not start"
cat >"$T/keys/ssh_config" <<EOF
Host h1 h2
	HostName 127.0.0.1
	User $(id -un)
	IdentityFile $T/keys/user
	IdentitiesOnly yes
	UserKnownHostsFile /dev/null
	StrictHostKeyChecking no
	LogLevel ERROR
	BatchMode yes
Host h1
	Port $p1
Host h2
	Port $p2
EOF
SSHCMD="ssh -F $T/keys/ssh_config"
$SSHCMD h1 true && $SSHCMD h2 true || fail "ssh to the loopback hosts failed"
printf '1/h1\n1/h2\n' >"$T/hosts.txt"

# Recordings: several programs and trace kinds, and one PIE at two
# addresses (0xaaaaaaab0000 and 0x5500000000).
recs="etm4-etr-basic etm4-etr-pie ete-trbe-pie ete-trbe-smp etm4-etr-dynfx etm4-etr-samples"
for r in $recs; do
	cp "$G/$r.data" "$T/work/runs/$r.data" || fail "no $r.data"
	"$SY" convert -q --symfs "$ROOT" --format lbr -o "$T/local/$r.lbr" "$G/$r.data" ||
		fail "local convert of $r"
done
"$SY" merge -q -o "$T/local/fleet.lbr" "$T"/local/*.lbr || fail "local merge"

# ssh passes no environment: the sanitizer options the suite runs with
# (the suppressions of OpenCSD's documented leak) go with the command
senv="env"
for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
	eval "val=\${$v:-}"
	[ -n "$val" ] && senv="$senv $v='$val'"
done

# The recipe (README): converts on the hosts, files sent and returned.
cd "$T/work" || fail "cd"
export PARALLEL_HOME="$T/parallel-home"
ls runs/*.data | parallel --ssh "$SSHCMD" --sshloginfile "$T/hosts.txt" \
	--workdir "$T/remote" --transferfile {} --return {.}.lbr --cleanup \
	"$senv $SYA convert -q --format lbr --symfs $ROOT -o {.}.lbr {} && echo \"\$SSH_CONNECTION\"" \
	>"$T/jobs.out" 2>"$T/jobs.err" ||
	{ cat "$T/jobs.err"; fail "parallel converts failed"; }
for port in "$p1" "$p2"; do
	grep -q " $port\$" "$T/jobs.out" ||
		{ cat "$T/jobs.out"; fail "no job ran on the host at port $port"; }
done
for r in $recs; do
	cmp -s "runs/$r.lbr" "$T/local/$r.lbr" || fail "$r: the remote output differs"
done
[ -z "$(ls -A "$T/remote" 2>/dev/null | grep -v '^runs$')" ] &&
	[ -z "$(ls -A "$T/remote/runs" 2>/dev/null)" ] || fail "--cleanup left files on a host"
# the merge tree on the hosts too: parts of 2, then the parts
ls runs/*.lbr | parallel --ssh "$SSHCMD" --sshloginfile "$T/hosts.txt" -N 2 \
	--workdir "$T/remote" --transferfile {1} --transferfile {2} --return part-{#}.lbr --cleanup \
	"$senv $SYA merge -q -o part-{#}.lbr {}" 2>"$T/merge.err" ||
	{ cat "$T/merge.err"; fail "parallel merges failed"; }
[ "$(ls part-*.lbr | wc -l)" -eq 3 ] || fail "expected 3 partial sums"
"$SYA" merge -q -o fleet.lbr part-*.lbr || fail "final merge"
cmp -s fleet.lbr "$T/local/fleet.lbr" ||
	{ diff "$T/local/fleet.lbr" fleet.lbr | head; fail "the fleet's merge differs from one local merge"; }
# and llvm-profgen reads the PIE's samples at both addresses: the fleet's
# profile of it is the one it builds from all the outputs one after the
# other
PIE=$ROOT/tests/fixtures/programs/bin/branchy-aarch64-pie
flags="--format=text --profile-summary-cold-count=0"
cat "$T"/local/*-pie.lbr >cat.lbr
for x in fleet cat; do
	llvm-profgen-19 --perfscript=$x.lbr --binary="$PIE" $flags --output=$x.prof \
		>$x.log 2>&1 || { cat $x.log; fail "llvm-profgen-19 failed on $x"; }
done
[ -s fleet.prof ] || fail "empty profile of the PIE"
cmp -s fleet.prof cat.prof ||
	{ diff cat.prof fleet.prof | head; fail "the fleet's profile of the PIE differs"; }
exit 0
