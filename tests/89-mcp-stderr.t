#!/bin/bash
# sr-mcp's stderr at its end: a stdio sr-mcp keeps it to the end (what its
# end of input does, e.g. a session it could not close, is said to its
# user); only the per-request sr-mcp under sr-mcp-http (SR_MCP_ONE_REQUEST=1),
# whose stderr is the front's log, turns it to /dev/null past its answer.
# Seen in the system calls (strace): the redirection is a dup2 onto fd 2.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip_all "no strace here (the test reads sr-mcp's system calls)"
export HOME="$T/home"
mkdir -p "$HOME"
strace -f -qq -o "$T/probe" -e trace=dup2,dup3 true 2>/dev/null ||
	skip_all "strace cannot trace here (ptrace refused)"

# onto_stderr FILE: a dup2/dup3 onto fd 2 is in the trace
onto_stderr() { grep -Eq 'dup[23]\([0-9]+, 2[,)]' "$1"; }

run env -u SR_MCP_ONE_REQUEST strace -f -qq -o "$T/stdio" -e trace=dup2,dup3 sr-mcp </dev/null
is "$rc" 0 "a stdio sr-mcp at end of input ends with 0"
nok "a stdio sr-mcp does not turn its stderr away at end of input" onto_stderr "$T/stdio"

# the control: the same end under SR_MCP_ONE_REQUEST=1 does, in the same trace
run env SR_MCP_ONE_REQUEST=1 strace -f -qq -o "$T/one" -e trace=dup2,dup3 sr-mcp </dev/null
is "$rc" 0 "a one-request sr-mcp at end of input ends with 0"
ok "control: a one-request sr-mcp turns its stderr to /dev/null (the trace sees it)" onto_stderr "$T/one"

done_testing
