#!/bin/bash
# Unit tests of lib/jr.c, the strict JSON reader sr-exec reads profiles
# with (a compiled TAP program).
exec "${SR_ROOT:-$(dirname "$0")/..}/tests/unit/test_jr"
