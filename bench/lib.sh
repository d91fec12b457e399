# bench/lib.sh - helpers for bench/rows.sh.
#   group TITLE              start a table; its rows run in one hyperfine call
#   row LABEL CMD...         a row of the current group (skipped, with the
#                            reason, when its program is not built)
#   ratio_to LABEL...        the rows whose medians the ratios are against
#   section TITLE FUNC       a free-form section: FUNC prints Markdown
#   quick Q FULL             Q when SR_BENCH_QUICK is set, else FULL
_groups=()
group() { _groups+=("$1"); _g=${#_groups[@]}; eval "_rows_$_g=()"; eval "_refs_$_g=()"; }
row() {
	local label=$1; shift
	local cmd
	printf -v cmd '%q ' "$@"
	eval "_rows_$_g+=(\"\$label\" \"\$cmd\")"
}
ratio_to() { eval "_refs_$_g+=(\"\$@\")"; }
_sections=()
section() { _sections+=("$1" "$2"); }
have() { command -v "$1" >/dev/null 2>&1; }
# quick Q FULL: Q under SR_BENCH_QUICK, FULL otherwise (a count, seconds).
quick() { if [ -n "${SR_BENCH_QUICK:-}" ]; then echo "$1"; else echo "$2"; fi; }

_run_group() { # INDEX
	local i=$1 title=${_groups[$(($1 - 1))]} args=() names=() n
	eval "local rows=(\"\${_rows_$i[@]}\")"
	eval "local refs=(\"\${_refs_$i[@]+\"\${_refs_$i[@]}\"}\")"
	echo
	echo "### $title"
	echo
	for ((n = 0; n < ${#rows[@]}; n += 2)); do
		names+=("${rows[n]}")
		args+=(-n "${rows[n]}" "${rows[n+1]}")
	done
	local json="$work/g$i.json" runs=()
	[ -n "${SR_BENCH_QUICK:-}" ] && runs=(--runs 10)
	if ! hyperfine -N -w 5 "${runs[@]}" --style none --export-json "$json" "${args[@]}" >"$work/g$i.log" 2>&1; then
		echo "(failed: $(tail -3 "$work/g$i.log" | tr '\n' ' '))"
		return
	fi
	python3 "$SR_ROOT/bench/table.py" "$json" "${refs[@]}"
}

# SR_BENCH_ONLY=REGEX runs only the groups and sections whose title or
# function matches it (grep -E), e.g. SR_BENCH_ONLY=mcp_section for the
# run_code row alone; the targets are then those of what ran.
_wanted() { [ -z "${SR_BENCH_ONLY:-}" ] || printf '%s\n' "$@" | grep -Eq -- "$SR_BENCH_ONLY"; }

bench_all() {
	local i
	for ((i = 1; i <= ${#_groups[@]}; i++)); do
		_wanted "${_groups[i-1]}" && _run_group "$i"
	done
	for ((i = 0; i < ${#_sections[@]}; i += 2)); do
		_wanted "${_sections[i]}" "${_sections[i+1]}" || [ "${_sections[i+1]}" = targets_section ] || continue
		echo
		echo "### ${_sections[i]}"
		echo
		"${_sections[i+1]}"
	done
}
