#!/bin/bash
# What the caller holds that a payload would steal, looked for through the
# whole chain (sr-limit sr-jail sr-exec): environment variables such as a
# token, the ssh agent socket, credential files in HOME, the environment
# of the jail's init, keys in the caller's keyrings. Each comes with a
# control that finds the secret where that layer is absent.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/p"
cc_probe_file p/kp kp.c
KP=$T/p/kp
LIMIT=(sr-limit --pids 64 --timeout 20s)
CHAIN=("${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec)
chain() { run "${CHAIN[@]}" /p/kp "$@"; }
bare() { run "$KP" "$@"; }

# reversed S: S backwards (the probe is given the token reversed, so that
# its own command line does not hold it).
reversed() { local s=$1 r= i; for ((i = ${#s} - 1; i >= 0; i--)); do r+=${s:i:1}; done; printf '%s' "$r"; }

# A token in the caller's environment.
token="sr-token-$$-$RANDOM$RANDOM"
export SECRET_TOKEN=$token GITHUB_TOKEN=$token-gh AWS_SECRET_ACCESS_KEY=$token-aws
bare scan "$(reversed "$token")"
like "$out" "found in environ" "control: on the host the probe finds SECRET_TOKEN in its environment"
like "$out" "found in /proc/[0-9]+/environ" "control: and in /proc/PID/environ of the user's processes"
chain scan "$(reversed "$token")"
is "$out" absent "inside, no environment and no /proc/PID/environ or cmdline holds the token (nor GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY)"
run "${CHAIN[@]}" env
unlike "$out" "SECRET_TOKEN|GITHUB_TOKEN|AWS_SECRET|SR_" "env inside lists none of the caller's variables"
run "${LIMIT[@]}" sr-jail --keep-env SECRET_TOKEN --ro-bind "$T/p" /p sr-exec /p/kp scan "$(reversed "$token")"
like "$out" "found in environ" "control: passed with --keep-env, the probe finds it"
chain read /proc/1/environ
is "$out" EACCES "the jail's init (a copy of sr-jail, with the caller's environment) cannot be read: EACCES"
chain read /proc/self/environ
like "$out" "^ok " "control: the probe can read its own /proc/self/environ"
unset SECRET_TOKEN GITHUB_TOKEN AWS_SECRET_ACCESS_KEY

# An ssh agent: SSH_AUTH_SOCK names a socket the test listens on.
cat > "$T/agent.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); s.settimeout(0.5)
open(sys.argv[2] + ".up", "w").close()
end = time.time() + 50
while time.time() < end:
    try:
        c, _ = s.accept(); c.close()
        with open(sys.argv[2], "a") as f: f.write("conn\n")
    except socket.timeout:
        pass
PY
: > "$T/agent.log"
python3 "$T/agent.py" "$T/agent.sock" "$T/agent.log" &
apid=$!
at_exit "kill $apid 2>/dev/null"
wait_for "the ssh agent" 5 test -e "$T/agent.log.up"
conns() { sleep 0.2; grep -c conn "$T/agent.log"; }
SSH_AUTH_SOCK=$T/agent.sock chain agent "$T/agent.sock"
is "$out" "SSH_AUTH_SOCK=unset
connect=ENOENT" "inside, SSH_AUTH_SOCK is unset and the agent's socket does not exist"
is "$(conns)" 0 "the agent saw no connection"
SSH_AUTH_SOCK=$T/agent.sock bare agent "$T/agent.sock"
is "$out" "SSH_AUTH_SOCK=$T/agent.sock
connected" "control: on the host the probe finds the agent and connects"
wait_for "the agent logs the control's connection" 10 grep -q conn "$T/agent.log"
is "$(conns)" 1 "control: the agent saw it"

# Credential files under a temporary HOME.
creds=".netrc .git-credentials .aws/credentials .docker/config.json .config/gh/hosts.yml .ssh/id_rsa"
for c in $creds; do
	mkdir -p "$(dirname "$T/home/$c")"
	echo "credential $c $$" > "$T/home/$c"
done
n=0
for c in $creds; do
	HOME=$T/home bare read "$T/home/$c"
	[ "$out" = "ok credential $c $$" ] && n=$((n + 1))
done
is "$n" 6 "control: the probe reads all six credential files on the host"
HOME=$T/home run "${CHAIN[@]}" sh -c 'for c; do /p/kp read "$c"; /p/kp read "$HOME/${c#*/home/}"; done' sh \
	$(for c in $creds; do printf '%s ' "$T/home/$c"; done)
is "$(printf '%s\n' "$out" | sort -u)" ENOENT "inside, none of them exists, by host path or under the jail's HOME"

# The caller's keyrings: a user key added with keyctl(1).
if command -v keyctl >/dev/null; then
	desc="sr-test-$$"
	kid=$(keyctl add user "$desc" "secret-$$" @u 2>&1)
	if [[ $kid =~ ^[0-9]+$ ]]; then
		at_exit "keyctl unlink $kid @u >/dev/null 2>&1"
		run keyctl print "$kid"
		is "$out" "secret-$$" "control: keyctl print reads the key on the host"
		bare keyread "$kid"
		is "$out" "keyread=ok secret-$$" "control: the probe reads it with KEYCTL_READ on the host"
		bare keysearch "$desc"
		is "$out" "keysearch=ok $kid" "control: and finds it in @u with KEYCTL_SEARCH"
		chain keyread "$kid"
		is "$out" "keyread=EPERM" "inside, KEYCTL_READ of the caller's key: EPERM"
		chain keysearch "$desc"
		is "$out" "keysearch=EPERM" "inside, KEYCTL_SEARCH of @u: EPERM"
		run "${CHAIN[@]}" keyctl print "$kid"
		unlike "$out" "secret-$$" "keyctl print inside does not show the secret"
		ok "and fails ($(printf '%s' "$err" | head -1))" test "$rc" != 0
		run "${CHAIN[@]}" sh -c 'cat /proc/keys /proc/key-users; keyctl show @u; keyctl show @s'
		unlike "$out" "secret-$$" "nothing inside shows the key's payload"
		hex=$(printf '%08x' "$kid")
		run grep -E "^$hex .* $desc: " /proc/keys
		is "$rc" 0 "control: on the host /proc/keys lists the key by id and description ($hex $desc)"
		run "${CHAIN[@]}" cat /proc/keys
		unlike "$out" "$desc|^$hex " "inside, /proc/keys shows neither the key's description nor its id"
		run "${CHAIN[@]}" cat /proc/key-users
		unlike "$out" "^ *$(id -u):" "inside, /proc/key-users shows nothing of the caller's keys"
	else
		for d in "keyctl print control" "KEYCTL_READ control" "KEYCTL_SEARCH control" "KEYCTL_READ inside" \
			"KEYCTL_SEARCH inside" "keyctl print inside" "keyctl print fails" "no payload inside" \
			"/proc/keys control" "/proc/keys inside" "/proc/key-users inside"; do
			skip "$d" "keyctl add failed here: $kid"
		done
	fi
else
	for d in "keyctl print control" "KEYCTL_READ control" "KEYCTL_SEARCH control" "KEYCTL_READ inside" \
		"KEYCTL_SEARCH inside" "keyctl print inside" "keyctl print fails" "no payload inside"; do
		skip "$d" "keyctl(1) is not installed (Debian package keyutils)"
	done
fi

done_testing
