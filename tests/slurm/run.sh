#!/bin/bash
# tests/slurm/run.sh - `make check-slurm`: sr jobs on a real Slurm cluster.
#
# As root (CI is), it installs Debian's slurm-wlm and munge when they are
# missing, and starts a one-node cluster on loopback in a temporary
# directory: munged on its own socket and key, slurmctld and slurmd from a
# generated slurm.conf (the node is `hostname -s` at 127.0.0.1; root is the
# SlurmUser; proctrack/linuxproc, task/none and no cgroup plugin, so that
# it runs on any cgroup setup). Once `sinfo` says the node is idle, it runs
# tests/slurm/*.t under prove as the unprivileged account srcheck (see
# scripts/stage.sh), and it stops every daemon it started on the way out,
# whatever happened. Not root, or no packages: a TAP skip that says why.
# The normal suite (`make check`) never starts any of this.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
skip_all() { echo "1..0 # SKIP $*"; exit 0; }

# The staged side, as srcheck: the tests themselves.
if [ "${SR_SLURM_STAGED:-}" = 1 ]; then
	cd "$root" || exit 1
	exec prove --exec '' ${PROVE_FLAGS:-} tests/slurm/*.t
fi

[ "$(id -u)" = 0 ] || skip_all "make check-slurm starts munged, slurmctld and slurmd: run it as root"

pkgs="slurm-wlm munge"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed$' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "# check-slurm: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	  { apt-get update -q >/dev/null &&
	    apt-get install -y -q --no-install-recommends $missing >/dev/null; }; } ||
		skip_all "apt-get could not install:$missing"
fi
for c in munged slurmctld slurmd srun sinfo squeue scancel scontrol; do
	command -v "$c" >/dev/null || skip_all "$c is not installed (slurm-wlm, munge)"
done

D=$(mktemp -d /tmp/sr-slurm.XXXXXX) || exit 111
chmod 0755 "$D" # srcheck reaches the munge socket and slurm.conf here
pids=()
# Stop what we started: the jobs first (their steps end with them), then
# the daemons, by the pids we started them with; then the directory.
stop_all() {
	if [ -n "${SLURM_CONF:-}" ] && [ "${#pids[@]}" -gt 1 ]; then
		scancel --quiet --user srcheck 2>/dev/null
		for _ in $(seq 100); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	local p
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]+"${pids[@]}"}"; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$D"
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# munged: its own key, socket, log and seed, in the foreground.
mkdir -m 0700 "$D/munge"
head -c 1024 /dev/urandom > "$D/munge/munge.key"
chmod 0400 "$D/munge/munge.key"
munged -F --force --key-file="$D/munge/munge.key" --socket="$D/munge.sock" \
	--pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" \
	--seed-file="$D/munge/munged.seed" 2>"$D/munged.err" &
pids+=($!)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
host=$(hostname -s)
mkdir -p "$D/state" "$D/spool"
cat > "$D/slurm.conf" <<EOF
ClusterName=srcheck
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
KillWait=5
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=24 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
chmod 0644 "$D/slurm.conf"
export SLURM_CONF=$D/slurm.conf

# wait_until SECS CMD...: poll CMD every 0.1 s until it succeeds.
wait_until() {
	local secs=$1 i
	shift
	for i in $(seq $((secs * 10))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
daemon_failed() {
	echo "Bail out! $1; its log:"
	tail -n 20 "$2" 2>/dev/null | sed 's/^/# /'
	exit 1
}
wait_until 20 test -S "$D/munge.sock" || daemon_failed "munged did not start" "$D/munged.err"
slurmctld -D -c -i -f "$SLURM_CONF" 2>"$D/slurmctld.err" &
pids+=($!)
wait_until 30 scontrol ping || daemon_failed "slurmctld did not answer" "$D/slurmctld.log"
slurmd -D -f "$SLURM_CONF" 2>"$D/slurmd.err" &
pids+=($!)
idle() { [ "$(sinfo -h -o %T)" = idle ]; }
wait_until 60 idle || daemon_failed "node $host is not idle ($(sinfo -h -o %T 2>&1))" "$D/slurmd.log"
chmod 0644 "$D/slurmctld.log"
echo "# check-slurm: node $host idle; slurm.conf and logs in $D"

. "$root/scripts/stage.sh"
sr_stage_run "$root" "${SR_TEST_USER:-srcheck}" tests/slurm/run.sh \
	SR_SLURM_STAGED=1 SLURM_CONF="$SLURM_CONF" SR_SLURM_LOG="$D/slurmctld.log" \
	PROVE_FLAGS="${PROVE_FLAGS:-}"
rc=$?
if [ "$rc" != 0 ]; then
	echo "# check-slurm: FAILED; the end of slurmctld's and slurmd's logs:"
	tail -n 15 "$D/slurmctld.log" "$D/slurmd.log" 2>/dev/null | sed 's/^/# /'
fi
exit $rc
