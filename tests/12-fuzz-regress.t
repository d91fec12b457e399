#!/bin/bash
# The fuzz targets of fuzz/ (make fuzz), run once over their seed corpora
# (fuzz/corpus/NAME) and over the inputs that once crashed them
# (fuzz/regress/NAME), through a plain driver with ASan and UBSan built by
# make check (fuzz/out/regress_NAME, from fuzz/driver.c): the harnesses
# keep building and running, and a parser bug the fuzzer found stays fixed.
. "$(dirname "$0")/lib.sh"

for t in parse json oci job mcp; do
	d=$SR_ROOT/fuzz/out/regress_$t
	if [ ! -x "$d" ]; then
		nok "fuzz $t: regression driver $d is built (make fuzz-regress)" true
		continue
	fi
	in=("$SR_ROOT/fuzz/corpus/$t")
	[ -d "$SR_ROOT/fuzz/regress/$t" ] && in+=("$SR_ROOT/fuzz/regress/$t")
	n=$(find "${in[@]}" -type f ! -name '.*' | wc -l)
	run "$d" "${in[@]}"
	if printf '%s' "$err" | grep -q 'ReserveShadowMemoryRange failed'; then
		skip "fuzz $t: $n inputs" "ASan cannot reserve its shadow memory under this process's limits"
		continue
	fi
	if printf '%s' "$err" | grep -q 'LeakSanitizer has encountered a fatal error'; then
		diag "LeakSanitizer cannot run here (ptrace refused?): $t runs without leak checks"
		ASAN_OPTIONS=detect_leaks=0 run "$d" "${in[@]}"
	fi
	is "$rc" 0 "fuzz $t: the $n seed and regression inputs go through the target"
	[ "$rc" = 0 ] || diag "$(printf '%s' "$err" | tail -n 25)"
	like "$err" "regress_$t: $n inputs\$" "fuzz $t: every input was run"
done
done_testing
