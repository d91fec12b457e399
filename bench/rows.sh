# bench/rows.sh - what `make bench` measures. Each group is one hyperfine
# run, so its rows are measured side by side; add a program's rows here.

# bwrap with isolation equivalent to sr's defaults: every namespace, a new
# session, die-with-parent, read-only /usr and the merged-/usr links, the
# loader cache, a fresh /proc, a minimal /dev, a tmpfs /tmp, a clean env.
BWRAP=(bwrap --unshare-all --die-with-parent --new-session --clearenv
	--setenv PATH /usr/local/bin:/usr/bin:/bin
	--ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64
	--symlink usr/bin /bin --symlink usr/sbin /sbin
	--ro-bind /etc/ld.so.cache /etc/ld.so.cache --ro-bind-try /etc/alternatives /etc/alternatives
	--proc /proc --dev /dev --tmpfs /tmp --chdir /tmp)
# The chain with the defaults a user gets, plus the limits people set.
CHAIN=(sr-limit --mem 256M --timeout 30s)
have sr-jail && CHAIN+=(sr-jail)
have sr-exec && CHAIN+=(sr-exec)
chain_label="chain: ${CHAIN[*]}"

group "Start-up: /bin/true"
ratio_to bare bwrap
row bare /bin/true
# Any program that execs another costs one more exec: env is the baseline
# for what sr-limit and sr-exec add beyond their own start.
row "env (one extra exec)" env /bin/true
row bwrap "${BWRAP[@]}" /bin/true
row "unshare -Urnpm --fork" unshare -Urnpm --fork /bin/true
row "sr-limit" sr-limit /bin/true
have sr-exec && row "sr-exec (filter load)" sr-exec /bin/true
have sr-jail && row "sr-jail" sr-jail /bin/true
row "$chain_label" "${CHAIN[@]}" /bin/true

group "Start-up: python3 -c 'print(1)'"
ratio_to bare bwrap
row bare /usr/bin/python3 -c 'print(1)'
row bwrap "${BWRAP[@]}" /usr/bin/python3 -c 'print(1)'
row "$chain_label" "${CHAIN[@]}" /usr/bin/python3 -c 'print(1)'

group "Start-up: node -e 0"
ratio_to bare bwrap
row bare /usr/bin/node -e 0
row bwrap "${BWRAP[@]}" /usr/bin/node -e 0
row "$chain_label" "${CHAIN[@]}" /usr/bin/node -e 0

group "Concurrency: N chains of /bin/true at once on $(nproc) CPUs"
ratio_to "chain x1"
for n in 1 2 4 8; do
	row "chain x$n" "$SR_ROOT/bench/par.sh" "$n" "${CHAIN[@]}" /bin/true
done
row "bwrap x8" "$SR_ROOT/bench/par.sh" 8 "${BWRAP[@]}" /bin/true
row "bare x8" "$SR_ROOT/bench/par.sh" 8 /bin/true

section "Resident memory of the supervisors (one run of the chain, sleeping)" rss_section
section "Targets" targets_section

rss_section() {
	"${CHAIN[@]}" /bin/sleep 2 &
	local top=$! pid
	sleep 0.7
	echo "| process | role | VmRSS |"
	echo "| --- | --- | --- |"
	# Walk the tree under the chain's first process.
	local tree=("$top") i=0
	while [ $i -lt ${#tree[@]} ]; do
		for pid in $(ps -o pid= --ppid "${tree[i]}" 2>/dev/null); do tree+=("$pid"); done
		i=$((i + 1))
	done
	for pid in "${tree[@]}"; do
		local comm rss role
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		rss=$(awk '/^VmRSS/ {print $2 " kB"}' "/proc/$pid/status" 2>/dev/null)
		case $comm in
		sr-limit) role="sr-limit, waiting for its child" ;;
		sr-jail) role="sr-jail (outer, or the init inside)" ;;
		sleep) role="the payload" ;;
		*) role="" ;;
		esac
		echo "| $comm ($pid) | $role | $rss |"
	done
	wait "$top"
}

targets_section() {
	python3 "$SR_ROOT/bench/targets.py" "$work" "$chain_label"
}
