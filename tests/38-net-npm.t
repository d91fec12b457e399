#!/bin/bash
# sr-net on the real network, where this machine reaches the npm registry
# (CI does): npm install in a jail whose one way out allows
# registry.npmjs.org alone; another host is refused, saying why. The
# control: the registry answers from outside the jail.
. "$(dirname "$0")/lib.sh"
need_npm_registry
ok "the control: the registry answers outside the jail" \
	curl -sS --max-time 20 -o /dev/null https://registry.npmjs.org/is-number
mkdir "$T/w"
run timeout 300 sr-net --socket "$T/net.sock" --log "$T/net.log" --allow registry.npmjs.org \
	sr-jail --net-proxy "$T/net.sock" --bind "$T/w" /w --chdir /w \
	sr-exec --net sh -c 'HOME=/w npm install --no-audit --no-fund --no-update-notifier is-number@7.0.0 >/w/npm.out 2>&1; echo npm=$?;
		curl -sS https://registry.yarnpkg.com/ -o /dev/null 2>&1 | tail -1'
like "$out" "npm=0" "npm install through the proxy, the registry alone allowed"
ok "... and the package is there" test -f "$T/w/node_modules/is-number/package.json"
like "$(cat "$T/net.log")" '"host":"registry.npmjs.org","port":443,"via":"connect","decision":"allowed"' \
	"... each connection recorded as allowed"
like "$out" "CONNECT tunnel failed, response 403" "another host (registry.yarnpkg.com) refused with 403"
like "$(cat "$T/net.log")" '"host":"registry.yarnpkg.com","port":443,"via":"connect","decision":"denied","why":"registry.yarnpkg.com port 443 is not in the allow list"' \
	"... and the record says why"
done_testing
