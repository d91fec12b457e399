#!/bin/bash
# sr-mcp's environments: the default one (the host's, with Python's
# scientific stack, listed as importable by sandbox_info) and one named
# with --environment NAME=DIR, the Debian rootfs make check builds
# (scripts/rootfs.sh), which run_code's environment picks
# (tests/mcp/environment.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns

# What the sandbox's python3 finds, asked here the plain way: the probe's
# answer must match it.
mods="numpy pandas scipy matplotlib sklearn statsmodels seaborn openpyxl PIL tabulate sympy"
SR_TEST_MODULES=$(sr-jail sr-exec python3 -c 'import sys, importlib.util as u
print(" ".join(m for m in sys.argv[1:] if u.find_spec(m)))' $mods)
export SR_TEST_MODULES

rootfs_env
node "$SR_ROOT/tests/mcp/environment.mjs"
exit $?
