# Boot to music, Fermata beside MPD on the same emulated board, as a ratio: boots alternate MPD, Fermata, MPD, Fermata, each resuming its saved queue at its saved position by itself.
# board-lab: no-auto-install
# Needs --deb fermata_<version>_arm64.deb. Boot 1 sets both up: MPD plays the music disk, is seeked to 0:10 and stopped
# (its state file says play), then the package is installed and Fermata does the same. Each later boot has only one
# of the two enabled (the other disabled, so that they do not fight over port 6600 and the card): boots 2 and 4 MPD,
# 3 and 5 Fermata. In each, the moment audio started is the first poll's uptime minus (elapsed - saved position), on
# the guest's clock from the kernel's start (as first-boot-mpd measures it). Interleaving the two halves the effect of
# the host's changing load on TCG. Result: btm.mpd_s, btm.fermata_s (each boot), and btm.ratio_fermata_to_mpd (of the
# medians).

B=$BOARD_LAB_DIR
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
arm_mpd() {  # MPD: seek to 0:10, stop (the state file records play and the position); next boot MPD only
    mpc -q seek 0:10; sleep 1
    systemctl stop mpd.service mpd.socket
    sed -n 's/^time: //p' /var/lib/mpd/state > "$B/saved-mpd"
    systemctl disable --quiet mpd.service mpd.socket
    systemctl enable --quiet fermata.service
}
arm_fermata() {  # Fermata: seek to 10 s, stop; next boot Fermata only
    fermata seek 10 >/dev/null 2>&1 || mpc -q seek 0:10
    sleep 3
    mpd_field elapsed > "$B/saved-fermata"
    systemctl stop fermata.service
    systemctl disable --quiet fermata.service
    systemctl enable --quiet mpd.service mpd.socket
}
measure() {  # measure NAME: waits for playing, records the boot-to-music figure
    local name=$1 st u e saved
    check "${name}_resumed_boot$BOARD_LAB_BOOT" wait_for 90 mpd_playing || return 1
    st=$(mpd_cmd status); u=$(uptime_s)
    mark "${name}_playing"
    e=$(printf '%s\n' "$st" | sed -n 's/^elapsed: //p'); saved=$(cat "$B/saved-$name")
    v=$(awk -v u="$u" -v e="$e" -v s="$saved" 'BEGIN { printf "%.2f", u - (e - s) }')
    echo "$name $v" >> "$B/btm.txt"
    result "btm.${name}_s=$v btm.${name}_elapsed=$e btm.${name}_saved=$saved"
}

case "$BOARD_LAB_BOOT" in
    1)
        mark scenario_start
        check mpd_answers wait_for 60 mpd_cmd ping
        mpc -q update --wait; mpc -q clear; mpc -q add /; mpc -q repeat on; mpc -q play
        check mpd_playing wait_for 30 mpd_playing
        mpc -q seek 0:10; sleep 1
        systemctl stop mpd.service mpd.socket
        sed -n 's/^time: //p' /var/lib/mpd/state > "$B/saved-mpd"
        lab_install "$(lab_deb 1)" || exit 3
        check fermata_active wait_for 60 fermata_active
        check fermata_playing fermata_play_music
        fermata queue repeat on >/dev/null 2>&1 || mpc -q repeat on
        arm_fermata                     # boot 2: MPD only
        again ;;
    2|4)
        mark scenario_start
        measure mpd
        systemctl enable --quiet fermata.service
        arm_mpd                         # boot 3/5: Fermata only
        again ;;
    3)
        mark scenario_start
        measure fermata
        arm_fermata
        again ;;
    5)
        mark scenario_start
        measure fermata
        median() { awk -v n="$1" '$1 == n { print $2 }' "$B/btm.txt" | sort -n |
            awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
        m=$(median mpd); f=$(median fermata)
        result "btm.mpd_median_s=$m btm.fermata_median_s=$f" \
            "btm.ratio_fermata_to_mpd=$(awk -v f="$f" -v m="$m" 'BEGIN { if (m + 0 > 0 && f + 0 > 0) printf "%.2f", f / m; else print "none" }')"
        cat "$B/btm.txt" ;;
esac
