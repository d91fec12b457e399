#!/bin/bash
# CPU time spent by processes that the jail's end kills must be charged:
# in sr-limit's report, and in sr-queue's results (its CPU budget counts
# them), else a tenant whose jobs run until killed is never charged.
. "$(dirname "$0")/../lib.sh"

need_userns

spin='(while :; do :; done) & sleep 2'
cpu() { python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(int(d["user_ms"] + d["sys_ms"]))' "$1"; }

run sr-limit --stats "$T/bare.json" sh -c "$spin"
bare=$(cpu "$(cat "$T/bare.json")")
ok "control: without a jail a spinner left behind is charged (${bare} ms)" test "$bare" -ge 500

run sr-limit --stats "$T/jail.json" sr-jail sh -c "$spin"
jail=$(cpu "$(cat "$T/jail.json")")
ok "a spinner killed at the jail's end is charged in the report (${jail} ms)" test "$jail" -ge 500

run sr-limit --stats "$T/chain.json" sr-jail sr-exec sh -c "$spin"
chain=$(cpu "$(cat "$T/chain.json")")
ok "... through the whole chain (${chain} ms)" test "$chain" -ge 500

id=$(sr-queue submit "$T/q" -- "$(command -v sr-jail)" sh -c "$spin")
run sr-queue run "$T/q" --once
run sr-queue status "$T/q" "$id" --json
queued=$(cpu "$out")
ok "sr-queue charges the job for it (${queued} ms)" test "$queued" -ge 500

done_testing
