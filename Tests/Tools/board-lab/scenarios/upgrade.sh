# Upgrade in place: N installed and playing with state an owner would notice, N+1 installed over it with apt; the service restarts onto the new binary, the owner's conffile edit and the state survive, playback resumes where it was; then purge leaves nothing.
# board-lab: no-auto-install
# Needs two packages, in order: --release TAG (the last release, built from its tag) or --deb fermata_N_arm64.deb,
# then --deb fermata_N+1_arm64.deb (N+1 must be the higher version).
# 1. N is installed with apt (offline, as lab_install does), the owner edits /etc/fermata/fermata.toml (a comment line
#    and mpd.listen = "0.0.0.0:6600"), restarts, and sets what a user would notice: a queue of six entries in an order
#    of their own (one song twice), the third entry playing at 0:09, volume 37, repeat on, an A-B loop 4-26 s on the
#    playing entry, a stored playlist "Board Lab Upgrade".
# 2. `apt-get install ./N+1.deb` while it plays. dpkg asks nothing when the package's conffile is the same in N and
#    N+1 (the owner's edit is kept silently; standard input is /dev/null, so a prompt would fail the install). When it
#    differs, dpkg would ask an owner at a terminal; non-interactively the scenario passes
#    `-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold`, which is what unattended-upgrades passes
#    and what the prompt's default answer (N, keep your version) does: the owner's file stays and the package's new one
#    is written beside it as fermata.toml.dpkg-dist. Reported: which case it was.
#    A poller samples MainPID, its /proc/PID/exe and MPD's status every ~0.2 s during the upgrade: the last sample of
#    the old fermatad playing (its position when postinst restarted it) and the first of the new one playing give the
#    silence, the resume position and the seconds from the start of `apt-get install` to playing again.
# 3. Checks: the installed version is N+1 (dpkg-query), a new MainPID running the binary now on disk (not a deleted
#    inode; `dpkg -V` finds only the edited conffile), active; the conffile byte for byte the owner's, and the new
#    daemon listens where it says; the queue (length and order), volume, repeat, loop, stored playlist, current entry
#    kept, the position within the restart's gap of where the old daemon stopped (unwrapped through the loop).
# 4. `apt-get purge fermata`: nothing left (/var/lib/fermata emptied (a mount of the state disk here), /etc/fermata,
#    the user and group, the units), as purge.sh checks.

old=$(lab_deb 1) new=$(lab_deb 2)
[ -n "$old" ] && [ -n "$new" ] || { result "error=\"needs --deb N --deb N+1\""; exit 2; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
conf=/etc/fermata/fermata.toml playlist="Board Lab Upgrade" poll_file=/tmp/upgrade-poll.txt
v_old=$(dpkg-deb -f "$old" Version) v_new=$(dpkg-deb -f "$new" Version)
result "upgrade.from=$v_old upgrade.to=$v_new"
check new_version_is_higher dpkg --compare-versions "$v_new" gt "$v_old"
mark scenario_start
mpd_off

# --- 1. N, the owner's edit, the state
lab_install "$old" || exit 3
check installed_N sh -c "[ \"\$(dpkg-query -W -f='\${Version}' fermata)\" = '$v_old' ]"
check service_active wait_for 60 fermata_active
sed -i '1a # board-lab: the owner edited this file before the upgrade (this line and mpd.listen)' "$conf"
toml_set "$conf" mpd listen '"0.0.0.0:6600"'
edited_md5=$(md5sum < "$conf" | cut -c1-32)
systemctl restart fermata.service
check service_active_after_edit wait_for 60 fermata_active
check playing_N fermata_play_music
mapfile -t files < <(mpd_cmd 'listall "Board Lab"' | sed -n 's/^file: //p' | sort)
[ "${#files[@]}" -ge 4 ] || { result "error=\"the music disk has ${#files[@]} files, not 4\""; exit 3; }
mpc -q clear
for i in 2 0 3 1 2 0; do mpc -q add "${files[$i]}"; done
mpc -q volume 37
mpc -q repeat on
mpc -q play 3
wait_for 30 mpd_playing
fermata seek 9 >/dev/null 2>&1 || mpc -q seek 0:09
fermata loop set 4 26 2>&1 | tail -2
mpc -q save "$playlist"
sleep 3   # a checkpoint (playback.checkpoint_interval, 2 s) after the last change
# snapshot FILE: what an owner would notice, in a form diff compares (the position is compared apart).
snapshot() {
    {
        mpd_cmd playlistinfo | sed -n 's/^file: /queue: /p'
        mpd_cmd status | grep -E '^(volume|repeat|random|single|consume|playlistlength|song|state):'
        mpd_cmd currentsong | sed -n 's/^file: /current: /p'
        mpd_cmd loop_status | grep -E '^loop_(start|end|repeat):'
        mpd_cmd listplaylists | grep '^playlist:'
        mpd_cmd "listplaylist \"$playlist\"" | sed 's/^file: /stored: /'
    } > "$1"
}
snapshot /tmp/state-N.txt
echo "--- the state before the upgrade"; cat /tmp/state-N.txt
loop_start=$(sed -n 's/^loop_start: //p' /tmp/state-N.txt) loop_end=$(sed -n 's/^loop_end: //p' /tmp/state-N.txt)
result "upgrade.queue_before=$(grep -c '^queue:' /tmp/state-N.txt) upgrade.volume_before=$(sed -n 's/^volume: //p' /tmp/state-N.txt)" \
    "upgrade.repeat_before=$(sed -n 's/^repeat: //p' /tmp/state-N.txt) upgrade.loop_before=${loop_start:-none}-${loop_end:-none}" \
    "upgrade.stored_playlist_before=$(grep -c '^stored:' /tmp/state-N.txt)"
check state_set_volume grep -qx 'volume: 37' /tmp/state-N.txt
check state_set_repeat grep -qx 'repeat: 1' /tmp/state-N.txt
check state_set_loop test -n "$loop_start"
check state_set_stored_playlist grep -qx "playlist: $playlist" /tmp/state-N.txt
check state_set_playing grep -qx 'state: play' /tmp/state-N.txt

# --- 2. N+1 over it, while it plays
conffile_md5() { dpkg-deb --fsys-tarfile "$1" | tar -xOf - ./etc/fermata/fermata.toml | md5sum | cut -c1-32; }
opts=()
if [ "$(conffile_md5 "$old")" = "$(conffile_md5 "$new")" ]; then
    conf_changed=no
else
    conf_changed=yes opts=(-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
fi
result "upgrade.package_conffile_changed=$conf_changed upgrade.dpkg_options=\"${opts[*]:-none}\""
poll() {  # one line per sample: uptime MainPID exe-deleted(0/1) state song elapsed
    local u pid del st
    while [ ! -e "$poll_file.stop" ]; do
        u=$(uptime_s); pid=$(fermatad_pid)
        del=0; case "$(readlink "/proc/${pid:-0}/exe" 2>/dev/null)" in *'(deleted)'*) del=1 ;; esac
        st=$(mpd_cmd status 2>/dev/null)
        printf '%s %s %s %s\n' "$u" "${pid:-0}" "$del" "$(printf '%s\n' "$st" | awk -F': ' '
            $1 == "state" { s = $2 } $1 == "song" { p = $2 } $1 == "elapsed" { e = $2 }
            END { printf "%s %s %s", s == "" ? "-" : s, p == "" ? "-" : p, e == "" ? "-" : e }')"
        sleep 0.2
    done
}
rm -f "$poll_file" "$poll_file.stop"
pid1=$(fermatad_pid)
poll > "$poll_file" 2>/dev/null &
poller=$!
sleep 1
since=$(date '+%Y-%m-%d %H:%M:%S')
t0=$(uptime_s)
mark upgrade_start version=$v_old pid=$pid1
lab_install "$new" ${opts[@]+"${opts[@]}"}; rc=$?
t_apt=$(uptime_s)
mark apt_done rc=$rc
check apt_install_N1 test "$rc" = 0
new_main() { local p; p=$(fermatad_pid); [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$pid1" ]; }
check restarted wait_for 60 new_main
check service_active_after wait_for 60 fermata_active
check playing_again wait_for 60 mpd_playing
t1=$(uptime_s)
mark playing_again
sleep 1
touch "$poll_file.stop"; wait "$poller"
pid2=$(fermatad_pid)

# --- 3. What the upgrade kept
installed=$(dpkg-query -W -f='${Version} ${db:Status-Abbrev}' fermata)
result "upgrade.installed=\"$installed\""
check installed_is_N1 test "$installed" = "$v_new ii "
exe=$(readlink "/proc/$pid2/exe")
result "upgrade.pid_before=$pid1 upgrade.pid_after=$pid2 upgrade.exe_after=\"$exe\"" \
    "upgrade.main_start=\"$(systemctl show -p ExecMainStartTimestamp --value fermata.service)\""
# /usr/bin/fermatad is the program itself (two-program packages) or a link to fermata (one program for both roles):
# the new process runs whichever file it resolves to now, not the unpacked-over old one.
program=$(readlink -f /usr/bin/fermatad)
check new_process_runs_installed_binary sh -c "[ \"$exe\" = \"$program\" ] && [ \"\$(stat -L -c %i /proc/$pid2/exe)\" = \"\$(stat -L -c %i /usr/bin/fermatad)\" ]"
check started_after_apt_began awk -v s="$(systemctl show -p ExecMainStartTimestampMonotonic --value fermata.service)" -v t="$t0" 'BEGIN { exit !(s / 1e6 > t) }'
check old_process_gone test ! -d "/proc/$pid1"
# The old fermatad kept playing through the unpack (prerm does not stop it on an upgrade) on the replaced inode.
check old_ran_until_restart_on_replaced_binary awk -v p="$pid1" '$2 == p && $3 == 1 { ok = 1 } END { exit !ok }' "$poll_file"
echo "--- dpkg -V fermata (only the owner's conffile may differ)"
dpkg -V fermata; dpkg -V fermata > /tmp/dpkg-V.txt 2>&1
check files_are_N1s sh -c "! grep -v ' c /etc/fermata/fermata.toml\$' /tmp/dpkg-V.txt | grep -q ."
echo "--- the conffile"
ls -la /etc/fermata/
result "upgrade.conffile_md5_edited=$edited_md5 upgrade.conffile_md5_after=$(md5sum < "$conf" | cut -c1-32)" \
    "upgrade.conffile_beside=\"$(cd /etc/fermata && ls -d fermata.toml.* 2>/dev/null | tr '\n' ' ')\""
check conffile_edit_kept test "$(md5sum < "$conf" | cut -c1-32)" = "$edited_md5"
if [ "$conf_changed" = no ]; then
    check conffile_nothing_beside sh -c '! ls /etc/fermata/fermata.toml.* >/dev/null 2>&1'
else
    check conffile_new_one_beside test -f /etc/fermata/fermata.toml.dpkg-dist
fi
check new_daemon_reads_kept_conffile sh -c "ss -ltnH | grep -q '0.0.0.0:6600 '"
snapshot /tmp/state-N1.txt
echo "--- the state after the upgrade (diff against before)"
diff /tmp/state-N.txt /tmp/state-N1.txt && echo "(identical)"
result "upgrade.queue_after=$(grep -c '^queue:' /tmp/state-N1.txt) upgrade.volume_after=$(sed -n 's/^volume: //p' /tmp/state-N1.txt)" \
    "upgrade.repeat_after=$(sed -n 's/^repeat: //p' /tmp/state-N1.txt)" \
    "upgrade.loop_after=$(sed -n 's/^loop_start: //p' /tmp/state-N1.txt)-$(sed -n 's/^loop_end: //p' /tmp/state-N1.txt)" \
    "upgrade.stored_playlist_after=$(grep -c '^stored:' /tmp/state-N1.txt)"
kept() { diff <(grep -E "$1" /tmp/state-N.txt) <(grep -E "$1" /tmp/state-N1.txt) >/dev/null; }
check queue_kept_length_and_order kept '^(queue|playlistlength):'
check volume_kept kept '^volume:'
check repeat_kept kept '^(repeat|random|single|consume):'
check loop_kept kept '^loop_'
check stored_playlist_kept kept '^(playlist|stored):'
check current_entry_kept kept '^(song|current):'
check playing_state_kept kept '^state:'
# The resume: the old daemon's last sample playing and the new one's first.
read -r ou oe os nu ne ns < <(awk -v p="$pid1" '
    $2 == p && $4 == "play" { ou = $1; os = $5; oe = $6 }
    $2 != p && $2 != 0 && $4 == "play" && $6 + 0 > 0 && nu == "" { nu = $1; ns = $5; ne = $6 }
    END { print (ou == "" ? "-" : ou), (oe == "" ? "-" : oe), (os == "" ? "-" : os), (nu == "" ? "-" : nu), (ne == "" ? "-" : ne), (ns == "" ? "-" : ns) }' "$poll_file")
[ "$nu" != - ] || nu=$t1
result "upgrade.samples=$(grep -c . "$poll_file") upgrade.old_last_playing_uptime=$ou upgrade.old_last_elapsed=$oe upgrade.old_song=$os" \
    "upgrade.new_first_playing_uptime=$nu upgrade.new_first_elapsed=$ne upgrade.new_song=$ns"
result "upgrade.apt_install_s=$(secs "$t0" "$t_apt") upgrade.to_playing_s=$(secs "$t0" "$nu")" \
    "upgrade.silence_sampled_s=$( [ "$ou" != - ] && secs "$ou" "$nu" || echo none)"
# The same from fermatad's own journal lines (monotonic seconds = uptime here): the old one's "player stopped; state
# saved" (SIGTERM from postinst's restart) and the new one's "first audio frame written … (monotonic_ns=…)".
journalctl -u fermata.service --since "$since" --no-pager -o short-monotonic > /tmp/upgrade-journal.txt
stopped=$(grep "fermatad\[$pid1\]: .*player stopped" /tmp/upgrade-journal.txt | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p' | tail -1)
audio=$(grep "fermatad\[$pid2\]: .*first audio frame written" /tmp/upgrade-journal.txt |
    sed -n 's/.*monotonic_ns=\([0-9]*\).*/\1/p' | head -1 | awk '{ printf "%.3f", $1 / 1e9 }')
result "upgrade.to_first_audio_s=$( [ -n "$audio" ] && secs "$t0" "$audio" || echo none)" \
    "upgrade.silence_s=$( [ -n "$stopped" ] && [ -n "$audio" ] && secs "$stopped" "$audio" || echo none)"
check same_song_after_restart test "$os" = "$ns"
# Where the old one stopped is between its last sample (oe) and oe + the gap; the new one has played since it started,
# at most the gap: ne in [oe - 2.5, oe + gap + 0.5] (2.5: a checkpoint interval, should the SIGTERM save be missed);
# with the loop, a position that wrapped past loop_end comes back (loop_end - loop_start) short.
check position_kept awk -v oe="$oe" -v ne="$ne" -v ou="$ou" -v nu="$nu" -v a="${loop_start:-0}" -v b="${loop_end:-0}" 'BEGIN {
    if (oe == "-" || ne == "-") exit 1
    hi = oe + (nu - ou) + 0.5; lo = oe - 2.5
    if (ne >= lo && ne <= hi) exit 0
    if (b > a && ne + (b - a) >= lo && ne + (b - a) <= hi) exit 0
    exit 1 }'
echo "--- the poller's samples around the restart (uptime pid exe-deleted state song elapsed)"
awk -v p="$pid1" '$2 != p { n++ } n <= 6' "$poll_file" | tail -12
echo "--- fermata.service's journal since the upgrade began"
grep -v "^--" /tmp/upgrade-journal.txt | tail -20
fermata doctor; result "upgrade.doctor_exit=$?"

# --- 4. Purge
echo "--- apt-get purge fermata"
apt-get purge -y -o Dpkg::Use-Pty=0 fermata </dev/null 2>&1 | grep -v "^(Reading database"
result "purge.dpkg_status=\"$(dpkg-query -W -f='${db:Status-Abbrev}' fermata 2>/dev/null || echo not-known)\""
check purge_not_installed sh -c '! dpkg-query -W -f="\${db:Status-Abbrev}" fermata 2>/dev/null | grep -q "^.i"'
check purge_nothing_running sh -c '! pgrep -x fermatad'
check purge_state_gone test -z "$(ls -A /var/lib/fermata 2>/dev/null)"
check purge_conffiles_gone test ! -e /etc/fermata
check purge_user_gone sh -c '! getent passwd fermata'
check purge_group_gone sh -c '! getent group fermata'
check purge_units_gone sh -c '! systemctl cat fermata.service fermata-poweroff.path fermata-poweroff.service >/dev/null 2>&1'
left=$(find / -xdev \( -path /proc -o -path /sys -o -path /run/board-lab -o -path /srv \) -prune -o \
    -iname '*fermata*' -print 2>/dev/null | grep -v '^/var/lib/dpkg/info' |
    { if mountpoint -q /var/lib/fermata; then grep -vx /var/lib/fermata; else cat; fi; } | tr '\n' ' ')
result "purge.left_behind=\"$left\" purge.state_is_mount=$(mountpoint -q /var/lib/fermata && echo yes || echo no)"
check purge_nothing_left test -z "$left"
