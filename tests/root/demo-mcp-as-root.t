#!/bin/bash
# `make demo-mcp` started by root runs the session as the unprivileged
# account (sr-mcp refuses root), as `make check` does, and succeeds.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (make check started as root runs it)"
run bash "$SR_ROOT/scripts/demo-mcp.sh"
is "$rc" 0 "the demo as root exits 0"
like "$out" "running as unprivileged account" "it switched to the unprivileged account"
like "$out" "4 months, total 518 best apr" "and the session ran the code"
unlike "$out$err" "running as root" "sr-mcp was not refused as root"
done_testing
