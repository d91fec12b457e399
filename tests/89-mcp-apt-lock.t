#!/bin/bash
# install_packages' apt: one install at a time into a workspace's layer
# (sr-mcp/runners/install/apt holds a flock(1) lock on the layer while its
# jail runs). The installer is run here with a stand-in for its chain (an
# sr-limit first in PATH that logs its start and end and waits for a go
# file), so that two installs into one layer can be held open at once:
# the second waits, and is refused past SR_APT_LOCK_WAIT; another
# workspace's layer is not held up; the chain gets no descriptor of the
# layer. (The stand-in waits 60 s at most: every wait here is bounded.)
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
like "$(cat "$T/err.pe")" "refused: another install into this workspace's packages still runs after 1 s; nothing was installed" "saying why"
nok "and its chain never ran" started pe
touch "$GO.pd"
wait $p1
done_testing
