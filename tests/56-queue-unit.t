#!/bin/bash
# Unit tests of sr-queue's scheduler (a compiled TAP program).
exec "${SR_ROOT:-$(dirname "$0")/..}/tests/unit/test_queue_fair"
