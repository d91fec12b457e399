# tests/lib.sh - TAP helpers for the shell tests; source it first.
#   run CMD...          run CMD; sets $rc, $out (stdout) and $err (stderr)
#   ok DESC CMD...      pass when CMD exits 0
#   nok DESC CMD...     pass when CMD exits non-zero
#   is GOT WANT DESC    pass when the strings are equal
#   like GOT ERE DESC   pass when GOT matches the extended regex ERE
#   unlike GOT ERE DESC pass when GOT does not match ERE
#   skip DESC REASON    a TAP skip that says why
#   skip_all REASON     skip the whole file (prints 1..0 # SKIP)
#   done_testing        print the plan; exit non-zero if anything failed
#   wait_for DESC SECS [!] CMD...  poll CMD until it succeeds (with !, fails)
#   wait_pid SECS PID   wait for a background child, killed past SECS; sets $wst
#   need_userns / have_userns      skip unless sr-jail can make its namespaces
#   need_quota [WHY]    skip unless sr-jail --quota works here
#   need_cmd CMD...     skip unless each CMD is installed
#   need_not_root       skip as root (sr-mcp-http refuses it)
#   http_tenants [LINE] gw, and tokens A and B in $T/tokens (umask 077)
#   mcp_client_guard / mcp_http_guard [CMD...]  skip unless the MCP clients run here
#   need_npm_registry   skip unless the npm registry is reachable (npm, curl)
#   need_two_users      root tests: victim/attacker accounts (vuid, auid)
#   cc_probe / cc_probe_file       build a C probe into $T
#   live_pids PID...    print those PIDs still alive; false if none is
set -u
: "${SR_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export SR_ROOT
PATH="$SR_ROOT/sr-limit:$SR_ROOT/sr-jail:$SR_ROOT/sr-exec:$SR_ROOT/sr-net:$SR_ROOT/sr-queue:$SR_ROOT/sr-mcp:$PATH"
export PATH
T=$(mktemp -d "${TMPDIR:-/tmp}/sr-test.XXXXXX")
_cleanups=()
at_exit() { _cleanups+=("$*"); }
_run_cleanups() {
	local c
	for c in "${_cleanups[@]+"${_cleanups[@]}"}"; do eval "$c" || true; done
	chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"
}
trap _run_cleanups EXIT
_n=0
_failed=0

_result() { # PASS DESC
	_n=$((_n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_failed=$((_failed + 1))
	fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

run() {
	set +e
	"$@" >"$T/.out" 2>"$T/.err"
	rc=$?
	out=$(cat "$T/.out")
	err=$(cat "$T/.err")
	return 0
}

ok() {
	local d=$1; shift
	if "$@" >"$T/.okout" 2>&1; then _result 1 "$d"
	else _result 0 "$d"; diag "command failed: $*" "$(head -c 2000 "$T/.okout")"; fi
}
nok() {
	local d=$1; shift
	if "$@" >"$T/.okout" 2>&1; then _result 0 "$d"; diag "command succeeded: $*" "$(head -c 2000 "$T/.okout")"
	else _result 1 "$d"; fi
}
is() {
	if [ "$1" = "$2" ]; then _result 1 "$3"
	else _result 0 "$3"; diag "got:  '$1'" "want: '$2'"; fi
}
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then _result 1 "$3"
	else _result 0 "$3"; diag "got:  '$(printf '%s' "$1" | head -c 2000)'" "want match: /$2/"; fi
}
unlike() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then _result 0 "$3"; diag "got:  '$(printf '%s' "$1" | head -c 2000)'" "want no match: /$2/"
	else _result 1 "$3"; fi
}
skip() {
	_n=$((_n + 1))
	echo "ok $_n - $1 # SKIP $2"
}
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}
done_testing() {
	echo "1..$_n"
	[ "$_failed" = 0 ]
}

# json_get FILE-or-STRING KEY.PATH: print a value from a JSON object
# (python3 is a test dependency; the tools themselves never use it).
json_get() {
	python3 -c '
import json, sys
src, path = sys.argv[1], sys.argv[2]
try:
    v = json.loads(open(src).read() if not src.lstrip().startswith("{") else src)
except Exception as e:
    print("<bad json: %s>" % e); sys.exit(0)
for k in path.split("."):
    if isinstance(v, dict) and k in v: v = v[k]
    elif isinstance(v, list) and k.isdigit() and int(k) < len(v): v = v[int(k)]
    else: print("<missing>"); sys.exit(0)
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)
' "$1" "$2"
}

# Is the sanitizer build in use? Some kernels limits cannot host ASan's
# shadow memory; tests say so when they skip for it.
san_asan() { case "${SAN:-}" in *address*) return 0 ;; esac; return 1; }
# What a test adds to sr-mcp's environment: under ASan no memory limit,
# which no rlimit fits with ASan's shadow memory (tests/mcp/tap.mjs too).
mcp_san=()
san_asan && mcp_san=(SR_MCP_MEMORY=off)

# cc_probe NAME SRC [CC-ARGS...]: compile the C source text SRC into $T/NAME.
# cc_probe_file NAME FILE [CC-ARGS...]: compile tests/probes/FILE into $T/NAME.
# Without a C compiler the file is skipped (or, once it has results, bails
# out); a probe that does not compile bails out: the file cannot go on.
cc_probe() {
	printf '%s\n' "$2" > "$T/$1.c"
	_cc_probe "$1" "$T/$1.c" "${@:3}"
}
cc_probe_file() {
	_cc_probe "$1" "$SR_ROOT/tests/probes/$2" "${@:3}"
}
_cc_probe() { # NAME SRC-FILE CC-ARGS...
	if ! command -v cc >/dev/null; then
		[ "$_n" = 0 ] && skip_all "no C compiler for the probe $1"
		echo "Bail out! no C compiler for the probe $1"; exit 1
	fi
	cc -O1 -w -o "$T/$1" "$2" "${@:3}" ||
		{ echo "Bail out! the probe $1 ($2) does not build"; exit 1; }
}

# wait_for DESC SECS [!] CMD...: run CMD, quietly, every 50 ms until it
# succeeds (with "!", until it fails) and return 0. After SECS seconds
# (decimals allowed) return 1 and say on stderr what did not happen. This
# is how a test waits for a process to be ready or gone: never a fixed sleep.
# SECS is a floor of its own at $SR_WAIT_MIN seconds (60 unless set): what
# a quiet machine needs in 1 s a loaded one, or a VM under TCG, may need 10x
# for, and a wait that ends early costs nothing. A wait is no speed check.
wait_for() {
	local desc=$1 secs=$2 want=0 i f now end
	shift 2
	if [ "${1:-}" = "!" ]; then want=1; shift; fi
	[ "${secs%%.*}" -ge "${SR_WAIT_MIN:-60}" ] 2>/dev/null || secs=${SR_WAIT_MIN:-60}
	i=${secs%%.*} f=
	case $secs in *.*) f=${secs#*.} ;; esac
	f=${f}000000
	now=${EPOCHREALTIME/[.,]/}
	end=$((now + ${i:-0} * 1000000 + 10#${f:0:6}))
	while :; do
		if "$@" >/dev/null 2>&1; then [ "$want" = 0 ] && return 0
		else [ "$want" = 1 ] && return 0; fi
		now=${EPOCHREALTIME/[.,]/}
		[ "$now" -lt "$end" ] || break
		sleep 0.05
	done
	echo "# wait_for: gave up after ${secs}s: $desc" >&2
	return 1
}

# wait_pid SECS PID: wait for the background child PID and set $wst to its
# status; past SECS seconds it is killed (SIGKILL, so $wst is 137) and that
# is said on stderr. Bounds a test's wait for a process that should end
# (generous SECS: a hang becomes a failure, slowness does not).
wait_pid() {
	local secs=$1 pid=$2 w
	(
		s=
		trap '[ -z "$s" ] || kill "$s" 2>/dev/null; exit 0' TERM
		sleep "$secs" & s=$!
		wait "$s"
		kill -KILL "$pid" 2>/dev/null &&
			echo "# wait_pid: $pid still running after ${secs}s: killed" >&2
	) &
	w=$!
	wait "$pid"
	wst=$?
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	return 0
}

# live_pids PID...: print (space-separated) those of the PIDs still alive;
# false when none is. Wait for a set to die with wait_for ... ! live_pids.
live_pids() {
	local p left=""
	for p in "$@"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
	printf '%s' "${left# }"
	[ -n "$left" ]
}

# have_userns: can sr-jail create its namespaces here? When it cannot,
# $userns_why holds its message. need_userns: skip the file unless it can.
# Only that failure is a reason to skip: a jail that fails otherwise is
# left to fail the tests.
have_userns() {
	userns_why=
	run sr-jail true
	case $rc:$err in
	0:*) return 0 ;;
	*"create the namespaces"*)
		userns_why=$(printf '%s\n' "$err" | grep -m1 "create the namespaces")
		return 1 ;;
	esac
	return 0
}
# Two users for the root tests: sets victim (the test account, made when
# missing), attacker (nobody), vuid and auid; skips the file unless root.
need_two_users() {
	[ "$(id -u)" = 0 ] || skip_all "needs root to act as two users (make check started as root runs it)"
	victim=${SR_TEST_USER:-srcheck}
	attacker=nobody
	if ! id -u "$victim" >/dev/null 2>&1; then
		echo "# creating unprivileged account '$victim'"
		useradd --system --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$victim" || skip_all "cannot create account $victim"
	fi
	id -u "$attacker" >/dev/null 2>&1 || skip_all "no account $attacker"
	vuid=$(id -u "$victim")
	auid=$(id -u "$attacker")
	[ "$vuid" != "$auid" ] || skip_all "$victim and $attacker are the same uid"
}

need_userns() {
	have_userns || skip_all "no user namespaces here: $userns_why"
}

# need_quota [WHY]: skip the file unless sr-jail --quota works here (a
# kernel without user xattrs on tmpfs refuses it); WHY says what needs it.
need_quota() {
	need_userns
	mkdir -p "$T/quota-probe"
	run sr-jail --bind "$T/quota-probe" /w --quota 1M true
	[ "$rc" = 0 ] || skip_all "sr-jail --quota does not work here${1:+ ($1)}: $err"
}

# user_tasks: how many tasks (threads too) this user has now. --pids is
# RLIMIT_NPROC above that count when sr-limit starts, so another process of
# the user that ends meanwhile (an idle sr-queue worker, say) leaves a bomb
# room for one more: a test allows for the drop it measured.
user_tasks() { ps -L -u "$(id -u)" --no-headers 2>/dev/null | wc -l | tr -d ' '; }
# tasks_gone BEFORE: how many fewer tasks the user has now than BEFORE (>= 0).
tasks_gone() { local now; now=$(user_tasks); echo $(( $1 > now ? $1 - now : 0 )); }

# The Debian rootfs make check builds (scripts/rootfs.sh), for the MCP
# tests of environments: SR_TEST_ROOTFS its path, or SR_TEST_ROOTFS_WHY
# why there is none (their TAP skip).
rootfs_env() {
	local status D
	status=$(cat "$SR_ROOT/.cache/rootfs/status" 2>/dev/null || echo "not built: run make check (scripts/rootfs.sh builds it)")
	D=$(cat "$SR_ROOT/.cache/rootfs/path" 2>/dev/null)
	if [ "$status" = ok ] && [ -x "$D/usr/bin/python3" ]; then
		export SR_TEST_ROOTFS=$D
	else
		export SR_TEST_ROOTFS_WHY="no Debian rootfs: $status"
	fi
}

# The tests of sr-net on the real network: the npm registry, which CI
# reaches, with npm and curl; skip_all saying why where it cannot be had.
need_npm_registry() {
	need_userns
	command -v npm >/dev/null || skip_all "no npm here"
	command -v curl >/dev/null || skip_all "no curl here"
	curl -sS --max-time 20 -o /dev/null https://registry.npmjs.org/is-number 2>/dev/null ||
		skip_all "the npm registry cannot be reached from here (no network): nothing to allow"
}

# need_cmd CMD...: skip the file unless each CMD is installed, naming it.
need_cmd() {
	local c
	for c; do
		command -v "$c" >/dev/null || skip_all "$c is not installed"
	done
}
# need_mcp_clients: skip the file unless node and the pinned MCP clients
# are installed (make check runs npm ci in tests/mcp).
need_mcp_clients() {
	need_cmd node
	[ -d "$SR_ROOT/tests/mcp/node_modules/@modelcontextprotocol/sdk" ] ||
		skip_all "the MCP clients are not installed (cd tests/mcp && npm ci)"
}
# mcp_client_guard: the same, and the sandbox runs here.
mcp_client_guard() {
	need_userns
	need_mcp_clients
}
# need_not_root: skip the file as root, which sr-mcp-http refuses (make
# check runs the suite as an ordinary user).
need_not_root() {
	[ "$(id -u)" != 0 ] ||
		skip_all "runs as an ordinary user (sr-mcp-http refuses root; make check runs it as one)"
}
# http_tenants [LINE]: for a test of sr-mcp-http, gw the front, and two
# tenants, alice and bob: A and B their tokens, written to $T/tokens
# (umask 077: the front refuses a file others can read), after LINE if
# given (a comment the file may hold).
http_tenants() {
	gw="$SR_ROOT/sr-mcp/http/sr-mcp-http"
	A=alice-token-0123456789abcdef
	B=bob-token-0123456789abcdefgh
	umask 077
	{ [ -z "${1-}" ] || printf '%s\n' "$1"; printf 'alice %s\nbob %s\n' "$A" "$B"; } >"$T/tokens"
}
# mcp_http_guard [CMD...]: the guard of a test of sr-mcp-http through the
# MCP clients: mcp_client_guard, need_not_root and need_cmd CMD...
mcp_http_guard() {
	mcp_client_guard
	need_not_root
	need_cmd "$@"
}

# mcp_call REQUEST CMD...: start the MCP server CMD, send it the one JSON-RPC
# line REQUEST, print its answer line, then close its input. (Piping into
# it would close its input at once, and a server gives the calls in flight
# only a moment after end of input.)
mcp_call() {
	python3 -c '
import subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
p.stdin.write(sys.argv[1] + "\n")
p.stdin.flush()
sys.stdout.write(p.stdout.readline())
p.stdin.close()
p.wait()
' "$@"
}
