# The package's mechanics on a booted systemd board, without needing a working daemon: offline apt install, user and groups, units enabled, udev rule, remove keeps the state, purge leaves nothing.
# board-lab: no-auto-install
# Needs --deb FILE (any fermata_*_arm64.deb; a stand-in whose programs only link the libraries does too). Checks what
# the maintainer scripts do under a running systemd (which a chroot cannot show): `apt-get install` (offline:
# the guest has no network) resolves every Depends from the image alone, the fermata user in audio/gpio/input, fermata.service and
# fermata-poweroff.path enabled, the unit's start attempted (its result is reported, not checked: a stand-in cannot
# send READY=1), the udev rule giving the gpio group the simulated GPIO chip; `apt-get remove` keeps /var/lib/fermata
# and the user; `apt-get purge` removes them and leaves no file named *fermata* outside /srv and the lab disk.

deb=$(lab_deb 1)
[ -n "$deb" ] || { result "error=\"needs --deb\""; exit 2; }
mark scenario_start
mpd_off
chip=$(gpio_sim_setup 8)
result "package.depends=\"$(dpkg-deb -f "$deb" Depends)\""
check install lab_install "$deb"
mark installed
check user_groups sh -c 'id -nG fermata | tr " " "\n" | grep -qx audio && id -nG fermata | tr " " "\n" | grep -qx gpio && id -nG fermata | tr " " "\n" | grep -qx input'
result "package.user=\"$(id fermata)\""
check unit_enabled systemctl is-enabled --quiet fermata.service
check poweroff_path_enabled systemctl is-enabled --quiet fermata-poweroff.path
sleep 3
result "package.unit_state=$(systemctl is-active fermata.service) package.unit_result=$(systemctl show -p Result --value fermata.service) package.nrestarts=$(systemctl show -p NRestarts --value fermata.service)"
journalctl -b -u fermata.service --no-pager | tail -5
check state_dir_owner sh -c '[ "$(stat -c %U /var/lib/fermata)" = fermata ]'
if [ -n "$chip" ]; then
    udevadm trigger --subsystem-match=gpio --action=add; udevadm settle
    result "package.gpiochip_mode=\"$(stat -c '%A %U:%G' "$chip")\""
    check udev_gives_gpio_group sh -c "[ \"\$(stat -c %G $chip)\" = gpio ]"
fi
systemd-analyze security --no-pager fermata.service 2>/dev/null | tail -1
apt-get remove -y -o Dpkg::Use-Pty=0 fermata 2>&1 | tail -3
check remove_programs_gone test ! -e /usr/bin/fermatad
check remove_keeps_state_dir test -d /var/lib/fermata
check remove_keeps_user getent passwd fermata
apt-get purge -y -o Dpkg::Use-Pty=0 fermata 2>&1 | grep -v "^(Reading database"
result "package.after_purge=\"$(dpkg-query -W -f='${db:Status-Abbrev}' fermata 2>&1)\""
check purge_user_gone sh -c '! getent passwd fermata'
check purge_etc_gone test ! -e /etc/fermata
check purge_state_emptied sh -c 'test -z "$(ls -A /var/lib/fermata 2>/dev/null)"'
left=$(find / -xdev \( -path /proc -o -path /sys -o -path /run/board-lab -o -path /srv \) -prune -o \
    -iname '*fermata*' -print 2>/dev/null | grep -v '^/var/lib/dpkg/info' |
    { if mountpoint -q /var/lib/fermata; then grep -vx /var/lib/fermata; else cat; fi; } | tr '\n' ' ')
result "package.left_behind=\"$left\""
check purge_nothing_left test -z "$left"
check reinstall_after_purge lab_install "$deb"
