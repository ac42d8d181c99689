# Remove keeps the state, purge leaves nothing behind, reinstall works after each: apt remove, reinstall, apt purge, reinstall.
# board-lab: no-auto-install
# Needs --deb fermata_N_arm64.deb [--deb fermata_N+1_arm64.deb] (the second, when given, is the one reinstalled after
# the remove: remove N, install N+1). The state lives on the state disk, bind-mounted at /var/lib/fermata as the README's
# read-only-root section advises: a purge must empty that folder without failing on the mount point.

first=$(lab_deb 1) second=$(lab_deb 2)
second=${second:-$first}
[ -n "$first" ] || { result "error=\"needs --deb\""; exit 2; }
mark scenario_start
mpd_off
lab_install "$first" || exit 3
check service_active wait_for 60 fermata_active
check playing fermata_play_music
sleep 3
q1=$(mpd_field playlistlength)
systemctl stop fermata.service
state_files=$(ls -A /var/lib/fermata | tr '\n' ' ')
result "purge.state_files=\"$state_files\""

echo "--- apt-get remove"
apt-get remove -y -o Dpkg::Use-Pty=0 fermata 2>&1 | tail -5
check remove_programs_gone test ! -e /usr/bin/fermatad -a ! -e /usr/bin/fermata
check remove_keeps_state test -n "$(ls -A /var/lib/fermata)"
check remove_keeps_conffile test -f /etc/fermata/fermata.toml
check remove_keeps_user getent passwd fermata
check remove_nothing_running sh -c '! pgrep -x fermatad'

echo "--- reinstall after remove"
lab_install "$second" || exit 3
check reinstall_active wait_for 60 fermata_active
wait_for 30 mpd_cmd ping
q=$(mpd_field playlistlength)
result "purge.queue_before_remove=$q1 purge.queue_after_reinstall=$q"
check reinstall_state_carried_on test "$q" = "$q1"

echo "--- apt-get purge"
apt-get purge -y -o Dpkg::Use-Pty=0 fermata 2>&1 | grep -v "^(Reading database"
result "purge.dpkg_status=\"$(dpkg-query -W -f='${db:Status-Abbrev}' fermata 2>/dev/null || echo not-known)\""
check purge_not_installed sh -c '! dpkg-query -W -f="\${db:Status-Abbrev}" fermata 2>/dev/null | grep -q "^.i"'
check purge_state_gone test -z "$(ls -A /var/lib/fermata 2>/dev/null)"
check purge_conffiles_gone test ! -e /etc/fermata
check purge_user_gone sh -c '! getent passwd fermata'
check purge_group_gone sh -c '! getent group fermata'
left=$(find / -xdev \( -path /proc -o -path /sys -o -path /run/board-lab -o -path /srv \) -prune -o \
    -iname '*fermata*' -print 2>/dev/null | grep -v '^/var/lib/dpkg/info' |
    { if mountpoint -q /var/lib/fermata; then grep -vx /var/lib/fermata; else cat; fi; } | tr '\n' ' ')
result "purge.left_behind=\"$left\""
check purge_nothing_left test -z "$left"
check purge_units_gone sh -c '! systemctl cat fermata.service >/dev/null 2>&1'

echo "--- reinstall after purge"
lab_install "$first" || exit 3
check reinstall_after_purge_active wait_for 60 fermata_active
result "purge.queue_after_purge_reinstall=$(mpd_field playlistlength)"
fermata doctor; result "purge.doctor_exit=$?"
