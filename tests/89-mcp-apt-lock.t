#!/bin/bash
# install_packages' apt: one install at a time into a workspace's layer
# (sr-mcp/runners/install/apt holds a flock(1) lock on the layer while its
# jail runs). The installer is run here with a stand-in for its chain (an
# sr-limit first in PATH that logs its start and end and waits for a go
# file), so that two installs into one layer can be held open at once:
# the second waits, and is refused past SR_APT_LOCK_WAIT; another
# workspace's layer is not held up; the chain gets no descriptor of the
# layer; a wait is bounded by the call's timeout_s (SR_LIMIT_ARGS'
# --timeout), and the install then gets what is left of it; as an install
# ends, the layer's size is recorded beside it (LAYER.size), or the record
# removed when it cannot be measured whole. (The stand-in waits 60 s at
# most: every wait here is bounded.)
# Control: the stand-in run twice at once, with no installer,
# overlaps.
. "$(dirname "$0")/lib.sh"
command -v flock >/dev/null || skip_all "no flock(1) here (util-linux)"
I=$SR_ROOT/sr-mcp/runners/install/apt
mkdir -p "$T/bin" "$T/ws" "$T/layer" "$T/layer2"
export LOG=$T/log GO=$T/go
cat > "$T/bin/sr-limit" <<'STUB'
#!/bin/bash
eval last=\${$#}
echo "start $last" >> "$LOG"
[ "${1-}" = --timeout ] && echo "timeout $last ${2%ms}" >> "$LOG"
[ "$last" = pbig ] && head -c 307200 /dev/urandom > "$SR_APT_LAYER/big"
[ "$last" = pshut ] && mkdir -p "$SR_APT_LAYER/shut" && chmod 000 "$SR_APT_LAYER/shut"
ls -l /proc/$$/fd/ | grep -q "$SR_APT_LAYER\$" && echo "fd $last" >> "$LOG"
for ((i = 0; i < 1200; i++)); do [ -e "$GO.$last" ] && break; sleep 0.05; done
echo "end $last" >> "$LOG"
STUB
chmod +x "$T/bin/sr-limit"
export PATH="$T/bin:$PATH" SR_ROOTFS=/nonexistent SR_WORKSPACE=$T/ws
inst() { SR_APT_LAYER=$1 "$I" "$2" 2> "$T/err.$2"; }
started() { grep -qx "start $1" "$LOG"; }

# control: two chains at once, with no lock, overlap
: > "$LOG"
SR_APT_LAYER=$T/layer sr-limit ctl1 & p1=$!
wait_for "ctl1 starts" 60 started ctl1
SR_APT_LAYER=$T/layer sr-limit ctl2 & p2=$!
ok "control: with no lock, a second chain into the layer starts while the first runs" wait_for "ctl2 starts" 60 started ctl2
touch "$GO.ctl1" "$GO.ctl2"
wait $p1 $p2

# two installs into one layer: the second waits for the first
: > "$LOG"
inst "$T/layer" pa & p1=$!
wait_for "pa starts" 60 started pa
inst "$T/layer" pb & p2=$!
ok "a second install into the same layer says it waits" wait_for "pb waits" 60 grep -q "another install into this workspace's packages runs: waiting" "$T/err.pb"
nok "and its chain has not started" started pb
inst "$T/layer2" pc & p3=$!
ok "an install into another workspace's layer is not held up" wait_for "pc starts" 60 started pc
touch "$GO.pa" "$GO.pc"
wait $p1; is "$?" 0 "the first install ends"
ok "then the second runs" wait_for "pb starts" 60 started pb
touch "$GO.pb"
wait $p2; is "$?" 0 "and ends"
wait $p3
is "$(grep -E ' p[ab]$' "$LOG" | tr '\n' ' ')" "start pa end pa start pb end pb " "one after the other, never at once"
nok "no chain got a descriptor of the layer (flock -o)" grep -q "^fd" "$LOG"
touch "$GO.pf"
SR_APT_LAYER=$T/layer flock "$T/layer" sr-limit pf
ok "control: locked with flock but no -o, the chain holds a descriptor of the layer" grep -qx "fd pf" "$LOG"

# past SR_APT_LOCK_WAIT, refused
: > "$LOG"
inst "$T/layer" pd & p1=$!
wait_for "pd starts" 60 started pd
SR_APT_LOCK_WAIT=1 inst "$T/layer" pe
is "$?" 1 "an install still held up past SR_APT_LOCK_WAIT is refused"
like "$(cat "$T/err.pe")" "refused: another install into this workspace's packages still runs after 1 s .*; nothing was installed" "saying why"
nok "and its chain never ran" started pe
touch "$GO.pd"
wait $p1

# the wait is part of the call's time: past timeout_s, refused (a call
# with time left still waits), and what is left of it is the install's
: > "$LOG"
inst "$T/layer" pg & p1=$!
wait_for "pg starts" 60 started pg
SR_LIMIT_ARGS="--timeout 60000ms" inst "$T/layer" pw & p2=$!
wait_for "pw waits" 60 grep -q "waiting for it" "$T/err.pw"
SR_APT_LAYER=$T/layer SR_LIMIT_ARGS="--timeout 1500ms" timeout 60 "$I" ph 2> "$T/err.ph"
is "$?" 1 "an install held up past its timeout_s (1.5 s; no SR_APT_LOCK_WAIT) is refused"
like "$(cat "$T/err.ph")" "still runs after 1.500 s .*the workspace's packages are busy; nothing was installed: try again" "saying the packages are busy, and to try again"
nok "and its chain never ran" started ph
ok "control: meanwhile the install with a 60 s timeout_s still waits" kill -0 $p2
nok "(its chain not started)" started pw
sleep 2
touch "$GO.pg"
wait $p1
ok "once the first ends, it runs" wait_for "pw starts" 60 started pw
left=$(sed -n 's/^timeout pw //p' "$LOG")
ok "with what is left of its 60 s (it waited 2 s at least): --timeout ${left}ms" test "${left:-60000}" -le 58000 -a "${left:-0}" -gt 0
touch "$GO.pw"
wait $p2

# the layer's size recorded as an install ends, removed when not measurable
rm -f "$T/layer2.size"
touch "$GO.pbig" "$GO.pshut"
inst "$T/layer2" pbig
size=$(cat "$T/layer2.size" 2>/dev/null)
ok "an install ends: the layer's size is recorded beside it (${size:-none} bytes)" test "${size:-0}" -ge 307200
inst "$T/layer2" pshut
ok "a layer that cannot be measured whole: its record removed (runs measure, fail closed)" test ! -e "$T/layer2.size"
ok "control: du cannot measure it" eval "! du -s -B1 -P $T/layer2 >/dev/null 2>&1"
chmod 700 "$T/layer2/shut"
done_testing
