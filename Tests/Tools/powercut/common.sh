# Sourced (bash) by campaign.sh and replay.sh: the work folder of a campaign or a recording.
# Needs $here, $lab, $daemon, $bin, $work set.

# prepare_work: checks what is needed, then makes $work afresh: the daemon binary (copied, so that a rebuild during a
# campaign changes nothing), the music disk image, an empty state disk image, fermata.toml and mpd.conf.
prepare_work() {
    if why=$("$lab" --check); then :; else echo "SKIP: $why"; exit 77; fi
    if [ "$daemon" = fermatad ]; then
        [ -x "$bin/fermatad" ] || { echo "${0##*/}: no $bin/fermatad (build it, or --bin DIR)" >&2; exit 2; }
    else
        command -v mpd > /dev/null || { echo "${0##*/}: no mpd (apt-get install mpd)" >&2; exit 2; }
    fi

    # Emptied first, but only a folder this script made (it holds .powercut) or an empty one.
    if [ -d "$work" ] && [ ! -f "$work/.powercut" ] && [ -n "$(ls -A "$work")" ]; then
        echo "${0##*/}: $work is not a power-cut work folder; not emptying it" >&2
        exit 64
    fi
    rm -rf "$work"
    mkdir -p "$work/bin"
    touch "$work/.powercut"
    [ "$daemon" = fermatad ] && cp "$bin/fermatad" "$work/bin/fermatad"

    # The music: generated once per machine (the same files for every campaign), then put on an ext4 image of its own.
    cache=/tmp/fermata-powercut/music-cache
    if [ ! -f "$cache/done" ]; then
        rm -rf "$cache" && mkdir -p "$cache"
        python3 "$here/mkmusic.py" "$cache/music" "$cache/pool"
        touch "$cache/done"
    fi
    cp -r "$cache/pool" "$work/pool"
    truncate -s 256M "$work/music.img"
    mkfs.ext4 -q -F -b 4096 -L music -d "$cache/music" "$work/music.img"
    # The state partition, as a board's: ext4, 4 KiB blocks, journal (data=ordered is ext4's default).
    truncate -s 256M "$work/state.img"
    mkfs.ext4 -q -F -b 4096 -L fermata-state "$work/state.img"

    # Configuration: the defaults (a board's fermata.toml only names its paths; they are given as flags by guest.sh).
    echo "# power-cut campaign: every key at its default" > "$work/fermata.toml"
    # Debian's /etc/mpd.conf, reduced to what matters here: the same files, the same defaults (no state_file_interval:
    # 120 s), the paced null output with a software mixer so that setvol works.
    cat > "$work/mpd.conf" << 'EOF'
music_directory     "/srv/music"
playlist_directory  "/var/lib/mpd/playlists"
db_file             "/var/lib/mpd/tag_cache"
state_file          "/var/lib/mpd/state"
sticker_file        "/var/lib/mpd/sticker.sql"
bind_to_address     "127.0.0.1"
port                "6600"
log_level           "default"
audio_output {
    type        "null"
    name        "null"
    mixer_type  "software"
}
EOF
}
