#!/bin/bash
# Unit tests of sr-exec's rule lists: every argument check is a partition
# of the value space with the intended action (a compiled TAP program).
exec "${SR_ROOT:-$(dirname "$0")/..}/tests/unit/test_exec_rules"
