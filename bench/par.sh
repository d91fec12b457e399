#!/bin/sh
# par.sh N CMD...: run N copies of CMD at once and wait for them all.
n=$1; shift
i=0
while [ $i -lt "$n" ]; do "$@" & i=$((i + 1)); done
wait
