#!/bin/bash
# Unit tests of the strict parsers in lib/parse.c (a compiled TAP program).
exec "${SR_ROOT:-$(dirname "$0")/..}/tests/unit/test_parse"
