# bench/lib.sh - helpers for bench/rows.sh.
#   group TITLE              start a table; its rows run in one hyperfine call
#   row LABEL CMD...         a row of the current group (skipped, with the
#                            reason, when its program is not built)
#   ratio_to LABEL...        the rows whose medians the ratios are against
#   section TITLE FUNC       a free-form section: FUNC prints Markdown
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

bench_all() {
	local i
	for ((i = 1; i <= ${#_groups[@]}; i++)); do _run_group "$i"; done
	for ((i = 0; i < ${#_sections[@]}; i += 2)); do
		echo
		echo "### ${_sections[i]}"
		echo
		"${_sections[i+1]}"
	done
}
