#!/bin/bash
# sr-mcp-http --secrets FILE: each tenant's sr-mcp gets its own secrets
# (tests/mcp/http-secrets.mjs), against the fake internet of
# tests/net/internet.sh, set up as in tests/89-mcp-secrets.t.
if [ -z "${SR_NET_NS-}" ] && unshare -c -n -m --keep-caps true 2>/dev/null; then
	SR_NET_NS=1 exec unshare -c -n -m --keep-caps "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
mcp_client_guard
REAL=sk-real-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
export SR_TEST_SECRET=$REAL
. "$SR_ROOT/tests/net/internet.sh"
{ cat /etc/hosts; echo '198.51.100.2 api.test other.test'; } >"$T/hosts"
mount --bind "$T/hosts" /etc/hosts 2>/dev/null || skip_all "cannot bind an /etc/hosts of the test's own"
cat /etc/ssl/certs/ca-certificates.crt "$T/ca.pem" >"$T/trust.pem" 2>/dev/null || cp "$T/ca.pem" "$T/trust.pem"
mount --bind "$T/trust.pem" /etc/ssl/certs/ca-certificates.crt 2>/dev/null ||
	skip_all "cannot bind a trust store of the test's own"
node "$SR_ROOT/tests/mcp/http-secrets.mjs"
exit $?
