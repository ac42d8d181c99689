# Recording's capture path on the emulated board (issue 38): the package installed, fermatad playing a loop at 80 % with the click on into snd-aloop while it records every pass from the loopback's other side, for RECORD_SECONDS (default 600); its CPU, the output's underruns, the capture's overruns and dropped frames, and the takes kept. RECORD=off: the same playback without recording (the baseline). PERIOD_MS and PERIODS set the output's period and buffer ([audio] period_ms, periods; 5 ms × 4 by default).
# board-lab: no-auto-install
# Needs --deb fermata_<version>_arm64.deb. fermatad logs an output underrun and a capture overrun or drop as notices
# (at most one every 10 s, with the count so far): the journal since the loop began must have none. MPD is stopped
# first (both speak on 6600 and play into the same card).

deb=$(lab_deb 1)
[ -n "$deb" ] || { result "error=no --deb given"; exit 2; }
seconds=${RECORD_SECONDS:-600}
mark scenario_start
mpd_off
lab_install "$deb" || exit 3
toml_set /etc/fermata/fermata.toml audio output '"hw:Loopback,0,0"'
toml_set /etc/fermata/fermata.toml record device '"hw:Loopback,1,0"'
toml_set /etc/fermata/fermata.toml record budget_mb 256
if [ -n "${PERIOD_MS:-}" ]; then toml_set /etc/fermata/fermata.toml audio period_ms "$PERIOD_MS"; fi
if [ -n "${PERIODS:-}" ]; then toml_set /etc/fermata/fermata.toml audio periods "$PERIODS"; fi
systemctl restart fermata.service
check service_active wait_for 60 fermata_active
check fermata_playing fermata_play_music
fermata loop set 4 14 2>&1 | tail -1
fermata tempo 80 2>&1 | tail -1
fermata metronome on 2>&1 | tail -1
if [ "${RECORD:-on}" = on ]; then
    check record_on sh -c 'fermata record on | grep -q "recording: on"'
fi
fermata status | grep -iE 'loop|tempo|click|metronome' || true
sleep 5
pid=$(fermatad_pid)
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
since=$(date '+%Y-%m-%d %H:%M:%S')
t0=$(uptime_s); c0=$(ticks)
mark recording
sleep "$seconds"
t1=$(uptime_s); c1=$(ticks)
mark recorded
fermata record
fermata status | head -5
hz=$(getconf CLK_TCK)
cpu=$(awk -v c="$((c1 - c0))" -v hz="$hz" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 100 * c / hz / (b - a) }')
journal=$(journalctl -u fermata.service --since "$since" --no-pager -o cat)
underruns=$(printf '%s\n' "$journal" | grep -c 'output underrun' || true)
overruns=$(printf '%s\n' "$journal" | grep -c 'ran over' || true)
notkept=$(printf '%s\n' "$journal" | grep -c 'not kept' || true)
kept=$(printf '%s\n' "$journal" | grep -c 'kept$' || true)
takes=$(mpd_cmd takes | grep -c '^take:' || true)
printf '%s\n' "$journal" | grep -E 'underrun|ran over|not kept|went away' | head -20
result "record.seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')" "record.fermatad_cpu_percent=$cpu" \
    "record.underrun_lines=$underruns" "record.overrun_lines=$overruns" "record.takes_kept_lines=$kept" \
    "record.takes_not_kept_lines=$notkept" "record.takes_listed=$takes" \
    "fermatad.$(proc_mem "$pid" | sed 's/ / fermatad./g')"
check no_output_underrun test "$underruns" = 0
if [ "${RECORD:-on}" = on ]; then
    check no_capture_overrun test "$overruns" = 0
    check takes_kept test "$kept" -ge $((seconds / 25))
fi
