# Fermata's hardened unit on a real systemd before any Fermata binary exists: deploy/fermata.service with `sleep` for fermatad, its sandbox probed from inside (ALSA, GPIO, input, disks, read-only system), `systemd-analyze security` beside MPD's unit.
# board-lab: no-auto-install
# Needs --file deploy/fermata.service (board-lab.sh copies it to the lab disk). The unit is installed as
# /etc/systemd/system/fermata.service with ExecStart=/bin/sleep infinity, Type=simple and no watchdog (sleep sends
# neither READY=1 nor WATCHDOG=1); everything else — User=fermata, SupplementaryGroups=audio gpio input,
# DevicePolicy=closed with its DeviceAllow= lines, ProtectSystem=strict, StateDirectory=, the system-call filter — is
# the shipped text. The fermata user and the gpio group are made as the package's postinst makes them, and the gpio-sim
# chip is given to the gpio group as deploy/99-fermata-gpio.rules does. Then the same probes as hardened.sh.

unit=$BOARD_LAB_DIR/files/fermata.service
[ -f "$unit" ] || { result "error=\"needs --file deploy/fermata.service\""; exit 2; }
mark scenario_start
chip=$(gpio_sim_setup 8)
for group in gpio input; do getent group "$group" >/dev/null || addgroup --system --quiet "$group"; done
getent passwd fermata >/dev/null || adduser --system --group --quiet --home /var/lib/fermata --no-create-home \
    --shell /usr/sbin/nologin fermata
for group in audio gpio input; do adduser --quiet fermata "$group"; done
[ -z "$chip" ] || { chgrp gpio "$chip"; chmod 0660 "$chip"; }
sed -e 's|^ExecStart=.*|ExecStart=/bin/sleep infinity|' -e 's|^Type=notify|Type=simple|' \
    -e '/^NotifyAccess=/d' -e '/^WatchdogSec=/d' "$unit" > /etc/systemd/system/fermata.service
systemctl daemon-reload
check unit_starts systemctl start fermata.service
check unit_active systemctl is-active --quiet fermata.service
pid=$(systemctl show -p MainPID --value fermata.service)
result "unit.main_user=$(ps -o user= -p "$pid") unit.groups=\"$(ps -o supgrp= -p "$pid")\""
systemd-analyze security --no-pager fermata.service > /tmp/security.txt 2>&1
score=$(sed -n 's/.*Overall exposure level for fermata.service: \([0-9.]*\) \(.*\)/\1 \2/p' /tmp/security.txt)
mscore=$(systemd-analyze security --no-pager mpd.service 2>&1 | sed -n 's/.*Overall exposure level for mpd.service: \([0-9.]*\) \(.*\)/\1 \2/p')
result "security.fermata_unit=\"$score\"" "security.mpd_unit=\"$mscore\""
echo "--- what systemd-analyze security still marks (fermata.service)"
grep -E '^✗' /tmp/security.txt | head -25
input=$(ls /dev/input/event* 2>/dev/null | head -1)
result "input_device=${input:-none}" "gpio_chip=${chip:-none}"
unit_probes fermata.service fermata "$chip" "$input"
systemctl stop fermata.service
