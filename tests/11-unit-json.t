#!/bin/bash
# Unit tests of lib/jw.c, the JSON writer of the static tools, against
# cJSON (a compiled TAP program).
exec "${SR_ROOT:-$(dirname "$0")/..}/tests/unit/test_jw"
