#!/bin/bash
# sr-mcp misconfigured fails at start, as the rest of the toolkit does: no
# runner (the directory missing, empty, unreadable), a state directory or
# spool that cannot be made or written or is a file, each ends sr-mcp with
# one line `sr-mcp: fatal: ...` naming what is wrong and what to set, exit
# 111, before it reads a request and with nothing on stdout (a client sees
# the exit code and the log line, never half a handshake). Each case has a
# control: the same start with the fault removed answers. A bad value of a
# numeric option blames that option alone (exit 100). Root is
# tests/root/mcp-as-root.t.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" != 0 ] || skip_all "runs as an ordinary user (root bypasses the modes tried here; make check runs it as one)"

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
printf '%s\n' "$init" >"$T/init"
mkdir -m 0700 "$T/r" && cp "$SR_ROOT/sr-mcp/runners/bash" "$T/r/bash"
# start ARGS...: sr-mcp (a state directory of its own, the runners in
# $T/r unless ARGS say otherwise) given initialize on an fd whose offset
# tells whether it read it: sets rc, out, err and pos (bytes it read).
start() {
	exec 3<"$T/init"
	run env -u SR_MCP_STATE_DIR -u SR_MCP_RUNNERS HOME="$T/home" sr-mcp --runners "$T/r" "$@" <&3
	pos=$(awk '/^pos:/ { print $2 }' "/proc/$$/fdinfo/3")
	exec 3<&-
}
# refused DESC ERE: the start just made failed at start as it should
refused() {
	is "$rc:$pos" "111:0" "$1: exit 111 before reading a request"
	is "$out" "" "$1: nothing on stdout"
	like "$err" "^sr-mcp: fatal: $2" "$1: the line says what and what to do"
	is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "$1: in one line"
}
answered() { # DESC: the start just made served
	is "$rc" 0 "$1: exit 0"
	like "$out" '"serverInfo":\{"name":"sr-mcp"' "$1: initialize answered"
}

# --- runners ------------------------------------------------------------------
start --state-dir "$T/s0"
answered "control: a runners directory with one runner"
ok "control: and nothing was made before the first tool call" test ! -e "$T/s0"
fix='; name the runners directory with --runners or SR_MCP_RUNNERS \(make install puts one runner per language in PREFIX/share/sr/sr-mcp/runners\)$'
start --state-dir "$T/s0" --runners "$T/no-such"
refused "a runners directory that does not exist" \
	"unable to read the runners directory $T/no-such: No such file or directory$fix"
mkdir -m 0700 "$T/empty"
start --state-dir "$T/s0" --runners "$T/empty"
refused "an empty runners directory" "no runner in the runners directory $T/empty: it holds no executable file .*$fix"
mkdir -m 0700 "$T/noexec" && touch "$T/noexec/python" && cp "$T/r/bash" "$T/noexec/.bash" &&
	mkdir "$T/noexec/sub"
start --state-dir "$T/s0" --runners "$T/noexec"
refused "a runners directory with no executable file (a hidden one, a plain file, a directory)" \
	"no runner in the runners directory $T/noexec"
cp -a "$T/r" "$T/closed" && chmod 0000 "$T/closed"
start --state-dir "$T/s0" --runners "$T/closed"
refused "a runners directory that cannot be read" \
	"unable to read the runners directory $T/closed: Permission denied$fix"
chmod 0600 "$T/closed"
start --state-dir "$T/s0" --runners "$T/closed"
refused "a runners directory that can be listed but not searched" "unable to read the runners directory $T/closed"
chmod 0700 "$T/closed"
start --state-dir "$T/s0" --runners "$T/closed"
answered "control: the same directory opened again"
touch "$T/afile"
run env HOME="$T/home" SR_MCP_STATE_DIR="$T/s0" SR_MCP_RUNNERS="$T/afile" sr-mcp <"$T/init"
is "$rc:$out" "111:" "SR_MCP_RUNNERS naming a file: exit 111, nothing on stdout"
like "$err" "^sr-mcp: fatal: unable to read the runners directory $T/afile: Not a directory" "naming it"

# --- the state directory --------------------------------------------------------
sfix='; set another with --state-dir or SR_MCP_STATE_DIR$'
mkdir -m 0500 "$T/ro"
start --state-dir "$T/ro/state"
refused "a state directory that cannot be made" \
	"unable to make state directory $T/ro/state: $T/ro: Permission denied$sfix"
start --state-dir "$T/ro/a/b/state"
refused "one deeper in it" "unable to make state directory $T/ro/a/b/state: $T/ro: Permission denied"
start --state-dir "$T/ro"
refused "a state directory that cannot be written" \
	"unable to use state directory $T/ro: Permission denied; make it yours to read and write \(chmod u\+rwx\), or set another with --state-dir or SR_MCP_STATE_DIR$"
start --state-dir "$T/afile"
refused "a state directory that is a file" "refusing state directory $T/afile: unable to open $T/afile: Not a directory"
start --state-dir "$T/afile/state"
refused "a state directory under a file" "unable to resolve state directory $T/afile/state: Not a directory"
mkdir -p -m 0700 "$T/home"
chmod 0500 "$T/home"
start
refused "the default state directory (HOME/.local/state/sr) that cannot be made" \
	"unable to make state directory $T/home/.local/state/sr: $T/home: Permission denied"
XDG_STATE_HOME=$T/ro start
refused "the default under XDG_STATE_HOME" "unable to make state directory $T/ro/sr: $T/ro: Permission denied"
chmod 0700 "$T/home"
start
answered "control: the default state directory once HOME is writable"
chmod 0700 "$T/ro"
start --state-dir "$T/ro/state"
answered "control: the same state directory once it can be made"
start --state-dir "$T/ro"
answered "control: and the directory itself once it can be written"
if [ -w /proc ]; then skip "a state directory in /proc" "/proc is writable here"
else
	start --state-dir /proc/sr-no-such/state
	refused "a state directory in /proc" "unable to make state directory /proc/sr-no-such/state: /proc: Permission denied"
fi

# --- what sr-mcp makes in it, and the spool --------------------------------------
for part in workspaces code; do
	mkdir -p -m 0700 "$T/p-$part/$part" && chmod 0500 "$T/p-$part/$part"
	start --state-dir "$T/p-$part"
	refused "its $part/ not writable" "unable to use $part directory $T/p-$part/$part: Permission denied"
	chmod 0700 "$T/p-$part/$part"
	start --state-dir "$T/p-$part"
	answered "control: its $part/ writable"
	rmdir "$T/p-$part/$part" && touch "$T/p-$part/$part"
	start --state-dir "$T/p-$part"
	refused "its $part/ a file" "refusing $part directory $T/p-$part/$part: unable to open $T/p-$part/$part: Not a directory"
done
mkdir -m 0700 "$T/sf" && touch "$T/sf/spool"
start --state-dir "$T/sf"
refused "the default spool (STATE/spool) a file" "refusing spool $T/sf/spool: unable to open $T/sf/spool: Not a directory"
start --state-dir "$T/s1" --spool "$T/afile"
refused "a --spool that is a file" "refusing spool $T/afile: unable to open $T/afile: Not a directory"
mkdir -m 0500 "$T/rs"
start --state-dir "$T/s1" --spool "$T/rs/spool"
refused "a --spool that cannot be made" \
	"unable to make spool $T/rs/spool: $T/rs: Permission denied; set another with --spool or SR_MCP_SPOOL$"
start --state-dir "$T/s1" --spool "$T/rs"
refused "a --spool that cannot be written" "unable to use spool $T/rs: Permission denied"
chmod 0700 "$T/rs"
start --state-dir "$T/s1" --spool "$T/rs/spool"
answered "control: a --spool that can be made"

# --- a bad value blames its option alone ------------------------------------------
# every numeric option: a malformed value, and the values it refuses
bad=(-j 0 -j x --jobs 0 --jobs 1.5 --pids 0 --pids 9x --timeout 0 --timeout 1x
	--timeout-max 1x --memory 0 --memory 1q --memory-max 1q --wait 1x --wait-max 1x
	--max-result-chars 999 --max-result-chars x --workspace-quota 0 --workspace-quota 1q
	--workspace-inodes x --workspace-ttl 1x --job-ttl 1x --job-space 1q
	--cpu-budget 10s --cpu-budget 0/1m --cpu-budget 10s/0 --cpu-budget x/1m
	--timeout 31m --timeout-max 4m --memory 5G --memory-max 500M --wait 56s --wait-max 44s)
for ((i = 0; i < ${#bad[@]}; i += 2)); do
	o=${bad[i]} v=${bad[i + 1]}
	run sr-mcp "$o" "$v" </dev/null
	is "$rc:$out" "100:" "$o $v: exit 100"
	like "$err" "^sr-mcp: usage: $o: (invalid|[a-z ]+ out of range:) [a-z]*:? ?'${v//./\\.}'( \(want [^)]*\))?$" \
		"$o $v: the one wording, blaming $o alone"
done
run sr-mcp --timeout 10m --timeout-max 5m </dev/null
is "$err" "sr-mcp: usage: --timeout: invalid duration: '10m' (want at most --timeout-max, 5m)" \
	"a default over the cap given with it: the default is blamed, the cap named with its value"
run env SR_MCP_WAIT_MAX=10s sr-mcp </dev/null
is "$err" "sr-mcp: usage: SR_MCP_WAIT_MAX: invalid duration: '10s' (want at least --wait, 45s)" \
	"a cap under the built-in default, from a variable: the variable is blamed"
run env SR_MCP_JOBS=0 sr-mcp </dev/null
is "$rc:$err" "100:sr-mcp: usage: SR_MCP_JOBS: invalid count: '0' (want at least 1)" "SR_MCP_JOBS=0: the variable alone"
start --state-dir "$T/s0" -j 1 --pids 1 --timeout 1ms --timeout-max 1ms --memory off --memory-max 1 \
	--wait 0 --wait-max 0 --max-result-chars 1000 --cpu-budget 1s/1s --workspace-inodes 0 --job-ttl 0 --job-space 0
answered "control: the smallest values each option takes"
done_testing
