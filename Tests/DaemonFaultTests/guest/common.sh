# Shared by the guest scenarios (sourced; bash). Runs inside ../shared/kernel-lab's VM as root.
# The VM starts with its loopback interface down: fermatad and the clients talk over 127.0.0.1.
ip link set lo up 2> /dev/null || ifconfig lo up
# mpd CMD: one MPD command over TCP on 127.0.0.1:6600, prints the reply's lines.
mpd() {
    exec 3<>/dev/tcp/127.0.0.1/6600 || return 1
    local line
    read -r -t 10 line <&3 || { exec 3<&-; return 1; }
    printf '%s\n' "$1" >&3
    while read -r -t 10 line <&3; do
        echo "$line"
        case $line in OK|ACK*) break ;; esac
    done
    exec 3<&-
}
# field NAME: one value of `status` (elapsed, state, ...).
field() { mpd status | sed -n "s/^$1: //p"; }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds; 1 when time runs out.
wait_for() {
    local end=$(( $(date +%s) + $1 )); shift
    until "$@"; do [ "$(date +%s)" -lt "$end" ] || return 1; sleep 0.2; done
}
# at_least VALUE MIN: VALUE >= MIN as decimals.
at_least() { awk -v v="${1:-0}" -v m="$2" 'BEGIN { exit !(v + 0 >= m + 0) }'; }
elapsed_at_least() { at_least "$(field elapsed)" "$1"; }
log_has() { grep -q "$1" "$log"; }
# log_count PATTERN N: the log holds at least N lines matching PATTERN.
log_count() { [ "$(grep -c "$1" "$log")" -ge "$2" ]; }
# start_daemon STATE OUTPUT: fermatad in the background ($pid), log in $log, answering MPD.
start_daemon() {
    "$fermatad" --config "$out/fermata.toml" --music "$out/music" --state "$1" --output "$2" \
        --listen 127.0.0.1:6600 --socket "" --resume off --checkpoint-interval 1 >> "$log" 2>&1 &
    pid=$!
    wait_for 240 mpd ping > /dev/null 2>&1 || { echo "fermatad did not answer within 240 s" >&2; return 1; }
}
# stop_daemon: SIGTERM and the exit status as "exit N".
stop_daemon() { kill -TERM "$pid"; wait "$pid"; echo "exit $?"; }
