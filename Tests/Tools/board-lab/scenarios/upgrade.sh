# Upgrade in place: version N installed and playing, N+1 installed over it with apt; the state migrates, playback resumes.
# board-lab: no-auto-install
# Needs two packages: --deb fermata_N_arm64.deb --deb fermata_N+1_arm64.deb (in that order). Reports both versions,
# the seconds from the start of the upgrade to fermatad playing again, the position before and after, the queue length
# before and after, the conffile kept (an edit made before the upgrade survives), and the journal's migration lines.

old=$(lab_deb 1) new=$(lab_deb 2)
[ -n "$old" ] && [ -n "$new" ] || { result "error=\"needs --deb OLD --deb NEW\""; exit 2; }
mark scenario_start
mpd_off
lab_install "$old" || exit 3
v1=$(dpkg-query -W -f='${Version}' fermata)
check service_active wait_for 60 fermata_active
toml_set /etc/fermata/fermata.toml mpd listen '"0.0.0.0:6600"'   # an owner's edit of the conffile
systemctl restart fermata.service; wait_for 60 fermata_active
check playing_before fermata_play_music
sleep 3
q1=$(mpd_field playlistlength); e1=$(mpd_field elapsed); pid1=$(fermatad_pid)
since=$(date '+%Y-%m-%d %H:%M:%S')
mark upgrade_start version=$v1 queue=$q1 elapsed=$e1
t0=$(uptime_s)
lab_install "$new" || exit 3
v2=$(dpkg-query -W -f='${Version}' fermata)
check service_active_after wait_for 60 fermata_active
check restarted sh -c "[ \"\$(systemctl show -p MainPID --value fermata.service)\" != $pid1 ]"
check playing_after wait_for 60 mpd_playing
t1=$(uptime_s)
mark playing_again
q2=$(mpd_field playlistlength); e2=$(mpd_field elapsed)
result "upgrade.from=$v1 upgrade.to=$v2" "upgrade.to_playing_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
    "upgrade.queue_before=$q1 upgrade.queue_after=$q2 upgrade.elapsed_before=$e1 upgrade.elapsed_after=$e2"
check version_changed test "$v1" != "$v2"
check queue_kept test "$q1" = "$q2"
check conffile_edit_kept grep -q '^listen = "0.0.0.0:6600"' /etc/fermata/fermata.toml
check no_dpkg_dist test ! -e /etc/fermata/fermata.toml.dpkg-dist
fermata doctor; result "upgrade.doctor_exit=$?"
journalctl -u fermata.service --since "$since" --no-pager | grep -iE 'migrat|schema|version' | tail -10
journalctl -u fermata.service --since "$since" --no-pager -p warning | tail -10
