# The watchdog: fermatad stopped with SIGSTOP; systemd notices within WatchdogSec, kills and restarts it; playback resumes.
# board-lab: no-auto-install
# Needs --deb fermata_<version>_arm64.deb. Reports: the unit's WatchdogUSec, TimeoutAbortUSec and RestartUSec; seconds
# from SIGSTOP to systemd's "Watchdog timeout" (journal), to a new fermatad active (new MainPID), and to `state: play`
# with elapsed > 0 again; NRestarts; the journal's lines about it.

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
usec_s() { systemctl show -p "$1" --value fermata.service; }
mark scenario_start
mpd_off
lab_install "$(lab_deb 1)" || exit 3
check service_active wait_for 60 fermata_active
check fermata_playing fermata_play_music
result "unit.WatchdogUSec=$(usec_s WatchdogUSec)" "unit.TimeoutAbortUSec=$(usec_s TimeoutAbortUSec)" \
    "unit.RestartUSec=$(usec_s RestartUSec)" "unit.NRestarts_before=$(usec_s NRestarts)"
sleep 2
pid=$(fermatad_pid)
before=$(mpd_field elapsed)
since=$(date '+%Y-%m-%d %H:%M:%S')
mark sigstop pid=$pid elapsed=$before
t0=$(uptime_s)
kill -STOP "$pid"
new_main() { p=$(fermatad_pid); [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$pid" ] && fermata_active; }
check restarted wait_for 150 new_main   # WatchdogSec + TimeoutAbortSec + RestartSec + a start under TCG
t1=$(uptime_s)
mark restarted pid=$(fermatad_pid)
check playback_resumed wait_for 60 mpd_playing
t2=$(uptime_s)
mark resumed elapsed=$(mpd_field elapsed)
wd=$(journalctl -u fermata.service --since "$since" --no-pager -o short-monotonic | grep -m1 -i 'watchdog timeout' | sed 's/^\[ *\([0-9.]*\)\].*/\1/')
result "watchdog.sigstop_to_timeout_s=$( [ -n "$wd" ] && secs "$t0" "$wd" || echo none)" \
    "watchdog.sigstop_to_active_s=$(secs "$t0" "$t1")" "watchdog.sigstop_to_playing_s=$(secs "$t0" "$t2")" \
    "watchdog.elapsed_before=$before watchdog.elapsed_after=$(mpd_field elapsed)" \
    "unit.NRestarts_after=$(usec_s NRestarts)"
# Within WatchdogSec of the stop systemd must notice (the kill and restart follow TimeoutAbortSec and RestartSec).
check timeout_within_watchdogsec awk -v w="${wd:-1e9}" -v t="$t0" -v l="$(systemctl show -p WatchdogUSec --value fermata.service | sed 's/s$//')" \
    'BEGIN { exit !(w - t <= l + 1.5) }'
check old_process_gone test ! -d "/proc/$pid"
journalctl -u fermata.service --since "$since" --no-pager -o short-monotonic | grep -v '^--' | tail -15
