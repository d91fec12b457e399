#!/bin/bash
# The escape suite through sr-mcp's run_code, case by case: every row of
# tests/escape/run_code.tsv (the shell case it mirrors, the runner, the
# code, what it must print inside, the control on the host) is tried by
# tests/mcp/escape-suite.mjs with one sr-mcp. tests/90-docs.t checks that
# every case of tests/escape/*.t has a row there or a reason in
# tests/escape/run_code-exempt.tsv.
. "$(dirname "$0")/../lib.sh"
mcp_client_guard
command -v cc >/dev/null || skip_all "no C compiler for the probes"
exec node "$SR_ROOT/tests/mcp/escape-suite.mjs"
