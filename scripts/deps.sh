#!/bin/sh
# deps.sh build|check|env - make sure the Debian packages sr needs are present.
# Missing ones are installed with apt-get (as root) or sudo, saying so; a
# user who may do neither is told exactly which packages to ask for.
set -u
# libseccomp-dev ships libseccomp.a too, which the musl sr-exec links.
BUILD="gcc make pkg-config libseccomp-dev libcjson-dev"
# libssl-dev: sr-net ends TLS for the hosts that have a secret (--secret).
BUILD="$BUILD libssl-dev"
# sr-limit, sr-jail and sr-exec are linked statically against musl unless
# the build says LIBC=glibc (see the Makefile).
[ "${LIBC:-musl}" = musl ] && BUILD="$BUILD musl-tools"
# What the test suite needs besides the build: prove (perl), mandoc for
# the man page lint, the interpreters the sandbox is tested with, and the
# tools the tests drive (runuser/setpriv from util-linux, iproute2 for ip,
# keyctl from keyutils for the keyring escapes; strace, which watches the
# order of sr-mcp's fsyncs; apparmor, whose apparmor_parser -Q reads
# sr-jail's AppArmor profile). python3-pip: sr-mcp's
# install_packages runs pip in the jail; matplotlib for the plots sr-mcp
# returns as images.
CHECK="perl mandoc bsdextrautils libcap2-bin python3 python3-pip python3-matplotlib nodejs util-linux iproute2 procps keyutils golang-github-containers-common strace apparmor"
# curl: the HTTP refusals of sr-mcp-http (tests/89-mcp-http-refusals.t);
# openssl: the test CA of sr-net's fake internet, and the clients tried
# through sr-net's proxy there (tests/38-net-proxy.t).
CHECK="$CHECK curl openssl wget git python3-requests python3-httpx"
# The environment sr-mcp's runs get by default (make install-env): the
# Python a data-analysis user expects, from Debian (sandbox_info lists what
# is importable). About 250 MB with what they pull in; sympy (33 MB) and
# the deep-learning stacks are left to install_packages. The suite checks
# it too (the README's worked example uses pandas), and builds a small
# Debian root file system with mmdebstrap for sr-jail --rootfs and
# sr-mcp --environment (scripts/rootfs.sh).
ENV="python3 python3-numpy python3-pandas python3-scipy python3-matplotlib python3-sklearn python3-statsmodels python3-seaborn python3-openpyxl python3-pil python3-tabulate"
# node-typescript: the compiler the typescript runner checks code with
# (Debian's, 4.8 in bookworm; pure JavaScript, bound into the jail).
ENV="$ENV node-typescript"
CHECK="$CHECK $ENV mmdebstrap"
# chromium: the browser tests/NN-mcp-app.t opens sr-mcp's MCP App in
# (headless, driven by tests/app's pinned puppeteer-core).
CHECK="$CHECK chromium"

case "${1:-build}" in
build) want=$BUILD ;;
check) want="$BUILD $CHECK" ;;
env) want=$ENV ;;
*) echo "deps.sh: usage: deps.sh build|check|env" >&2; exit 100 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	if [ "${1:-build}" = env ]; then
		echo "deps.sh: not Debian: install the counterparts of these with your system's packages:$ENV" >&2
		exit 0
	fi
	# Not Debian: trust pkg-config for the libraries and carry on.
	if ! pkg-config --exists libseccomp libcjson 2>/dev/null; then
		echo "deps.sh: fatal: libseccomp and cJSON development files not found (pkg-config libseccomp libcjson)" >&2
		exit 111
	fi
	if [ "${LIBC:-musl}" = musl ] && ! command -v musl-gcc >/dev/null 2>&1; then
		echo "deps.sh: fatal: musl-gcc not found: install musl, or build with make LIBC=glibc" >&2
		exit 111
	fi
	a="$(pkg-config --variable=libdir libseccomp)/libseccomp.a"
	if [ "${LIBC:-musl}" = musl ] && [ ! -f "$a" ]; then
		echo "deps.sh: fatal: $a not found (the static libseccomp): install it, or build with make LIBC=glibc" >&2
		exit 111
	fi
	exit 0
fi

missing=
for p in $want; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case $s in *" installed") ;; *) missing="$missing $p" ;; esac
done
# npm, for the MCP clients the sr-mcp tests drive: Debian's package only
# where no npm came with the installed Node.js.
if [ "${1:-build}" = check ] && ! command -v npm >/dev/null 2>&1; then
	missing="$missing npm"
fi
[ -z "$missing" ] && exit 0

echo "sr: installing missing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
else
	echo "sr: fatal: these Debian packages are needed and you may not install them:$missing" >&2
	echo "sr: ask an administrator to run: apt-get install$missing" >&2
	exit 111
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 ||
	{ $SUDO apt-get update -q >/dev/null 2>&1 &&
	  $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null; } || {
	echo "sr: fatal: apt-get could not install:$missing" >&2
	exit 111
}
echo "sr: installed:$missing"
