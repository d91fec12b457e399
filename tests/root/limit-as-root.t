#!/bin/bash
# Started by root (CI jobs, containers), every limit of sr-limit holds by
# a mechanism that binds root, or the run is refused naming why, or under
# --best-effort the report says it was not enforced: tests/24-limit-holds.t,
# which make check runs as a user, run as root. tests/run runs this file
# as root when it was itself started as root.
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (make check started as root runs it)"; exit 0; }
exec bash "$(dirname "$0")/../24-limit-holds.t"
