#!/bin/bash
# sr-mcp keeps the workspaces and the code of every run in its state
# directory, and exchanges files with the host through --host-dir: a
# directory that another local user owns, can write, or can swap (by
# writing the directory above it) would make them the owner of all of it.
# sr-mcp refuses such a directory at start with one line naming it and its
# owner (exit 111); sr-queue refuses a spool under such a directory. What
# only root can set up (a directory another account owns) is in
# tests/root/mcp-foreign-state.t.
. "$(dirname "$0")/lib.sh"

ping='{"jsonrpc":"2.0","id":1,"method":"ping"}'
me="uid $(id -u) \\($(id -un)\\)"
printf '%s\n' "$ping" >"$T/ping"
start() { # sr-mcp ARGS... given one ping and end of input: sets rc, out, err
	run sr-mcp "$@" <"$T/ping"
}

# --- control: a directory of one's own ---------------------------------------
mkdir -m 0700 "$T/mine"
start --state-dir "$T/mine/state"
is "$rc" 0 "control: a state directory of one's own is taken"
like "$out" '"result"' "control: and sr-mcp answers"

# --- the state directory itself ------------------------------------------------
mkdir -m 0700 "$T/ww" && chmod 0777 "$T/ww"
start --state-dir "$T/ww"
is "$rc" 111 "a world-writable state directory is refused (exit 111)"
like "$err" "^sr-mcp: fatal: refusing state directory $T/ww: $T/ww is writable by others \\(mode 0777, owner $me\\)" \
	"one line naming the directory, its mode and owner"
is "$out" "" "and nothing is answered"
is "$(wc -l <<<"$err")" 1 "the error is one line"

mkdir -m 0700 "$T/gw" && chmod 0770 "$T/gw"
start --state-dir "$T/gw"
is "$rc" 111 "a group-writable state directory is refused"
like "$err" "$T/gw is writable by its group" "saying by whom"

start --state-dir /tmp
is "$rc" 111 "a state directory owned by another user (root's /tmp) is refused"
like "$err" "refusing state directory /tmp: /tmp is (owned by uid 0 \\(root\\), not by $me|writable by others)" \
	"naming its owner"

# --- a directory above it that others can write (no sticky bit) ------------------
start --state-dir "$T/ww/sr"
is "$rc" 111 "a state directory to be made under a world-writable directory is refused"
like "$err" "refusing state directory $T/ww/sr: $T/ww is writable by others" "naming the directory above"
ok "and nothing was made there" test ! -e "$T/ww/sr"

mkdir -m 0700 "$T/ww/made"
start --state-dir "$T/ww/made"
is "$rc" 111 "one of one's own, under a directory others can write (they could swap it), is refused"

run env XDG_STATE_HOME="$T/ww" sr-mcp </dev/null
is "$rc" 111 "the default under XDG_STATE_HOME is judged the same way"
like "$err" "refusing state directory $T/ww/sr: $T/ww is writable by others" "naming it"

run env -u XDG_STATE_HOME HOME="$T/ww" sr-mcp </dev/null
is "$rc" 111 "and the default under HOME"

# a sticky directory writable by all (as /tmp) may hold it: nobody else can
# rename what is ours there
mkdir -m 0700 "$T/sticky" && chmod 1777 "$T/sticky"
call='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_workspaces","arguments":{}}}'
run mcp_call "$call" sr-mcp --state-dir "$T/sticky/sr"
is "$(json_get "$out" result.isError)" false "control: under a sticky world-writable directory (as /tmp) it is taken"
is "$(stat -c %a "$T/sticky/sr" 2>&1)" 700 "and made private"

# --- a symbolic link is resolved, then judged ----------------------------------------
ln -s "$T/ww" "$T/link"
start --state-dir "$T/link/sr"
is "$rc" 111 "a path through a link to such a directory is refused as well"

# --- a subdirectory of the state directory ---------------------------------------
mkdir -m 0700 "$T/st2" && mkdir -m 0700 "$T/st2/workspaces" && chmod 0777 "$T/st2/workspaces"
start --state-dir "$T/st2"
is "$rc" 111 "a subdirectory others can write (workspaces/) is refused at start"
like "$err" "^sr-mcp: fatal: refusing workspaces directory $T/st2/workspaces: $T/st2/workspaces is writable by others" \
	"one line naming it"

# --- the spool, and the host directories -------------------------------------------------
start --state-dir "$T/mine/state" --spool "$T/ww/spool"
is "$rc" 111 "--spool under a world-writable directory is refused"
like "$err" "refusing spool $T/ww/spool: $T/ww is writable by others" "naming it"

start --state-dir "$T/mine/state" --host-dir "$T/ww"
is "$rc" 111 "a --host-dir others can write is refused"
like "$err" "refusing host directory $T/ww: $T/ww is writable by others" "naming it"
run env SR_MCP_HOST_DIRS="$T/mine:/tmp" sr-mcp --state-dir "$T/mine/state" </dev/null
is "$rc" 111 "SR_MCP_HOST_DIRS holding another user's directory is refused"
like "$err" "refusing host directory /tmp: /tmp is" "naming it"
mkdir -m 0700 "$T/xchg"
start --state-dir "$T/mine/state" --host-dir "$T/xchg"
is "$rc" 0 "control: a host directory of one's own is taken"

# --- sr-queue: a spool under a directory others can swap -------------------------------
run sr-queue submit "$T/ww/q" -- true
is "$rc" 111 "sr-queue refuses a spool under a world-writable directory"
like "$err" "^sr-queue: fatal: refusing spool $T/ww/q: $T/ww is writable by others" "one line naming it"
run sr-queue submit "$T/sticky/q" -- true
is "$rc" 0 "control: sr-queue takes a spool under a sticky directory"
done_testing
