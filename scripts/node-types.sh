#!/bin/sh
# node-types.sh - Node.js's own types for sr-mcp's typescript runner:
# @types/node at the pinned version below, installed by npm into its global
# node_modules (/usr/lib/node_modules or /usr/local/lib/node_modules, where
# the runner and sr-mcp's trust check look for it), as root or with sudo,
# as the compiler itself is installed (Debian's node-typescript). 20.x
# types Node.js 20 and is read by TypeScript 4.8 (bookworm's); it brings
# undici-types (6.21.0, the one version its range allows). Offline, or
# without root, it says so and the runner checks with loose types (any);
# under CI that fails.
set -u
VERSION=20.19.43
for d in /usr/lib/node_modules /usr/local/lib/node_modules; do
	f=$d/@types/node/package.json
	[ -f "$f" ] && grep -q "\"version\": \"$VERSION\"" "$f" && exit 0
done
fail() {
	echo "sr: warning: $1: the typescript runner checks Node.js's API loosely (any)" >&2
	[ "${CI:-}" != true ] || exit 1
	exit 0
}
command -v npm >/dev/null 2>&1 || fail "no npm to install @types/node@$VERSION with"
if [ "$(id -u)" = 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
else
	fail "@types/node@$VERSION is needed and you may not install it: ask an administrator to run npm install -g @types/node@$VERSION"
fi
echo "sr: installing @types/node@$VERSION (npm install -g)"
(umask 022 && $SUDO npm install -g --no-audit --no-fund --loglevel=error "@types/node@$VERSION") >/dev/null ||
	fail "npm could not install @types/node@$VERSION"
