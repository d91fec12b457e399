# tests/net/internet.sh - sourced by the tests of sr-net (after lib.sh, in
# the network namespace of the test's own): the fake internet made, its
# servers (tests/net/internet.py) at 198.51.100.2 in a namespace of their
# own behind a veth pair, $T/ca.pem the CA that plays the public trust.
NET=$SR_ROOT/tests/net
need_userns
[ -n "${SR_NET_NS-}" ] || skip_all "no network namespace of the test's own (unshare -c -n --keep-caps failed)"
for c in ip openssl curl python3 git; do
	command -v $c >/dev/null || skip_all "no $c here to make and try the fake internet"
done
# The internet: a CA, a certificate for its names, servers in a namespace
# of their own behind a veth pair.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=sr-test-ca \
	-keyout "$T/ca.key" -out "$T/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=api.test -keyout "$T/srv.key" \
	-out "$T/srv.csr" 2>/dev/null
printf 'subjectAltName=DNS:api.test,DNS:other.test,DNS:www.api.test\n' >"$T/san"
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
	-days 2 -extfile "$T/san" -out "$T/srv.pem" 2>/dev/null
ip link set lo up
ip link add v0 type veth peer name v1
ip addr add 198.51.100.1/24 dev v0
ip link set v0 up
mkfifo "$T/go"
# What the internet serves as files: a git repository (dumb HTTP) and a
# small file.
mkdir -p "$T/www" && echo served-file >"$T/www/hello.txt"
git init -q -b main "$T/src" && echo from-the-repo >"$T/src/README" &&
	git -C "$T/src" add README && git -C "$T/src" -c user.name=t -c user.email=t@t commit -qm one &&
	git clone -q --bare "$T/src" "$T/www/repo.git" && git -C "$T/www/repo.git" update-server-info
unshare -n --keep-caps sh -c 'read x <"$1" && ip link set lo up && ip addr add 198.51.100.2/24 dev v1 &&
	ip link set v1 up && exec python3 "$2" 198.51.100.2 "$3" "$4" "$5" "$6"' \
	sh "$T/go" "$NET/internet.py" "$T/srv.pem" "$T/srv.key" "$T/ready" "$T/www" &
srv=$!
at_exit "kill $srv"
mine=$(readlink /proc/self/ns/net)
wait_for "the internet's namespace is made" 20 sh -c "[ \"\$(readlink /proc/$srv/ns/net)\" != '$mine' ]"
ip link set v1 netns "$srv"
echo go >"$T/go"
wait_for "the fake internet listens" 30 test -e "$T/ready"
