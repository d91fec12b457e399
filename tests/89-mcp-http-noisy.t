#!/bin/bash
# sr-mcp-http with a noisy tenant (tests/mcp/http-noisy.mjs): alice posts
# large batches from several sessions and keeps hundreds of idle
# connections open for SR_HTTP_NOISY_SECONDS (default 8) while bob calls
# run_code and tools/list: every call of bob's succeeds, the front is alive
# after and stays under its memory bound. Only correctness is asserted;
# make bench reports bob's latency with and without alice.
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http-noisy.mjs"
exit $?
