#!/usr/bin/env bash
# Runs one command with its own /etc/resolv.conf, so its name lookups (glibc, hence libcurl's threaded resolver)
# go to slow_dns.py; the rest of the machine keeps its resolver. See README.md "Slow DNS".
#
#   with_dns.sh [--nameserver 127.53.0.1] [--options "timeout:1 attempts:1"] -- COMMAND [ARGS...]
#       as root: a private mount namespace (unshare -m) with resolv.conf bind-mounted over; COMMAND keeps the host's
#       network, so it reaches the servers the test runs on loopback, and slow_dns.py listens on the host at
#       NAMESERVER:53 (start it first, as root).
#   with_dns.sh --netns [--options ...] -- COMMAND [ARGS...]
#       without root: a user + network + mount namespace (unshare -rnm), loopback brought up, slow_dns.py started
#       inside on 127.53.0.1:53 (root in the namespace may bind port 53) with SLOW_DNS_DELAY (default 2) s; COMMAND
#       sees only that namespace's loopback, so it must start every server it talks to itself (run the whole test
#       under it). COMMAND runs as uid 0 of the namespace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nameserver=127.53.0.1
options=""
netns=0
while [ $# -gt 0 ]; do
    case "$1" in
        --nameserver) nameserver=$2; shift 2;;
        --options) options=$2; shift 2;;
        --netns) netns=1; shift;;
        --) shift; break;;
        *) echo "with_dns.sh: unknown option $1" >&2; exit 2;;
    esac
done
[ $# -gt 0 ] || { echo "usage: with_dns.sh [--netns] [--nameserver IP] [--options OPTS] -- COMMAND..." >&2; exit 2; }
command -v unshare >/dev/null || { echo "SKIP: unshare (util-linux) is missing" >&2; exit 77; }
rc=$(mktemp /tmp/with-dns-resolv.XXXXXX)
chmod 644 "$rc"
{ echo "# with_dns.sh: every lookup goes to slow_dns.py"; echo "nameserver $nameserver"
  [ -n "$options" ] && echo "options $options"; } > "$rc"
export WITH_DNS_RESOLV=$rc WITH_DNS_HERE=$here
if [ $netns = 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "SKIP: with_dns.sh needs root (or --netns)" >&2; exit 77
    fi
    # --propagation private: the bind mount stays in this namespace
    exec unshare -m --propagation private -- sh -c 'mount --bind "$WITH_DNS_RESOLV" /etc/resolv.conf && rm -f "$WITH_DNS_RESOLV" && exec "$@"' \
        with_dns "$@"
fi
exec unshare -rnm --propagation private -- sh -c '
    set -e
    ip link set lo up 2>/dev/null || { echo "with_dns.sh: cannot bring lo up (iproute2 missing?)" >&2; exit 77; }
    mount --bind "$WITH_DNS_RESOLV" /etc/resolv.conf
    rm -f "$WITH_DNS_RESOLV"
    python3 "$WITH_DNS_HERE/slow_dns.py" --address 127.53.0.1 --port 53 --delay "${SLOW_DNS_DELAY:-2}" \
        > /tmp/with-dns-ready.$$ 2>"${SLOW_DNS_LOG:-/dev/null}" &
    dns=$!
    for i in $(seq 100); do [ -s /tmp/with-dns-ready.$$ ] && break; sleep 0.05; done
    rm -f /tmp/with-dns-ready.$$
    status=0
    "$@" || status=$?
    kill $dns 2>/dev/null || true
    exit $status' with_dns "$@"
