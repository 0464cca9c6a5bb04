# Sourced by tests/e2e/t_*.sh.  Each test is a shell script run from the
# project root with SY_BUILD set; it exits 0 (pass), 77 (skip) or other (fail).
# Under CI=true a skip is a failure: CI installs every oracle and has ../shared.
set -u
SY_BUILD=${SY_BUILD:-build}
SY=${SY:-$SY_BUILD/strobe-synth}
SHARED=${STROBE_SHARED_DIR:-../shared}
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-e2e-XXXXXX")
trap 'rm -rf "$T"' EXIT

skip() {
	if [ "${CI:-}" = "true" ]; then
		echo "FAIL (CI=true forbids skipping): $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

require_tool() {
	command -v "$1" >/dev/null 2>&1 || skip "oracle '$1' not on PATH"
}

require_path() {
	[ -e "$1" ] || skip "$1 not found"
}

# expect_status WANT CMD... : runs CMD, fails unless it exits with WANT.
expect_status() {
	want=$1
	shift
	"$@"
	got=$?
	[ "$got" -eq "$want" ] || fail "expected exit $want, got $got: $*"
}

# The binary as an absolute path, for tests that run it from another
# directory (their temporary one).
case $SY in
/*) SYA=$SY ;;
*) SYA=$(pwd)/$SY ;;
esac
