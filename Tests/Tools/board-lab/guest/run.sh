#!/bin/bash
# The board lab's runner in the guest (on the lab disk, mounted at /run/board-lab; started by board-lab.service after
# multi-user.target). Installs the --deb packages (boot 1, unless the scenario installs them itself), runs
# scenario.sh with lib.sh, reports, powers off. Its output is the serial console.
L=/run/board-lab
export BOARD_LAB_DIR=$L
BOARD_LAB_BOOT=$(sed -n 's/.*board_lab\.boot=\([0-9]*\).*/\1/p' /proc/cmdline)
export BOARD_LAB_BOOT=${BOARD_LAB_BOOT:-1}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root
. "$L/lib.sh"
. "$L/env" 2>/dev/null || true
name=$(cat "$L/NAME" 2>/dev/null || echo scenario)
echo "BOARD-LAB BEGIN scenario=$name boot=$BOARD_LAB_BOOT kernel=$(uname -r) arch=$(uname -m)"
lab_boot_figures
if [ -n "${BOARD_LAB_BLAME:-}" ]; then   # board-lab.sh -e BOARD_LAB_BLAME=1: costs ~30 s under TCG
    echo "--- systemd-analyze blame (the slowest units of this boot so far)"
    systemd-analyze blame --no-pager 2>&1 | head -15
fi
status=0
if [ "$BOARD_LAB_BOOT" = 1 ] && [ ! -e "$L/no-auto-install" ]; then
    for deb in $(lab_debs); do
        lab_install "$deb" || { status=3; break; }
    done
fi
if [ $status = 0 ]; then
    bash -c '. "$BOARD_LAB_DIR/lib.sh"; . "$BOARD_LAB_DIR/env" 2>/dev/null; set -o pipefail; . "$BOARD_LAB_DIR/scenario.sh"' 2>&1
    status=$?
fi
checks_failed=$(grep -c . "$L/failed-checks" 2>/dev/null || true)
[ "${checks_failed:-0}" = 0 ] || [ $status != 0 ] || status=1
sync
if [ -e "$L/again" ] && [ $status = 0 ]; then
    rm -f "$L/again"
    echo "BOARD-LAB AGAIN boot=$((BOARD_LAB_BOOT + 1))"
else
    echo "BOARD-LAB END status=$status failed_checks=${checks_failed:-0}"
fi
cd /
systemctl poweroff --no-block
