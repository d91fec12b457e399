#!/bin/bash
# Lost data is never silent, through sr-mcp (tests/mcp/lost.mjs, the
# official SDK client): jobs whose output or report sr-queue could not
# store (a full 64 KiB tmpfs in a user+mount namespace, as in
# tests/55-queue-lost.t) are placed in sr-mcp's spool as the worker left
# them, and job_status, job_logs and list_jobs must tell the model what
# was not kept and why; never "job_logs reads them" for bytes that are
# gone. Control: the same jobs run on a disk with room. sr-mcp itself
# cannot run on such a disk here: it refuses root, and in a namespace of
# its own user the directories above its state are not root's (nobody).
. "$(dirname "$0")/lib.sh"
mcp_client_guard

mnt=$T/mnt
mkdir -p "$mnt" "$T/full" "$T/roomy"
unshare -Urm sh -c "mount -t tmpfs -o size=64k x '$mnt'" 2>/dev/null ||
	skip_all "cannot mount a tmpfs in a user namespace here"

cat > "$T/jobs" <<'JOBS'
out	head -c 100000 /dev/zero | tr '\0' o
err	head -c 100000 /dev/zero | tr '\0' e >&2
none	printf '{"reason":"exit","exit_code":0,"pad":"%s"}' "$(head -c 6000 /dev/zero | tr '\0' x)" >&3
JOBS
cat > "$T/inner.sh" <<'INNER'
set -u
mnt=$1 T=$2
mount -t tmpfs -o size=64k x "$mnt" || exit 1
for sp in "$mnt/full" "$T/roomy-spool"; do
	tag=$(basename "$sp")
	tag=${tag%-spool}
	while IFS='	' read -r name cmd; do
		id=$(sr-queue submit "$sp" -- sh -c "$cmd") || exit 1
		echo "$name $id" >> "$T/$tag.ids"
	done < "$T/jobs"
	sr-queue run "$sp" --drain -j 1 2>/dev/null
	cp -a "$sp/done/." "$T/$tag/"
done
INNER
unshare -Urm bash "$T/inner.sh" "$mnt" "$T" || diag "the namespace's script failed"
node "$SR_ROOT/tests/mcp/lost.mjs" "$T"
exit $?
