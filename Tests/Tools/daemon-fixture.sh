# Sourced (bash) by the measuring scripts beside it: a track for fermatad to play and a fermatad that answers mpc.
# Uses $fermatad (the binary) and $work (a scratch folder, which gets daemon.log).

# write_silence PATH SECONDS: a 44.1 kHz, 16-bit stereo WAV of silence.
write_silence() {
    python3 -c 'import sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(44100)
w.writeframes(bytes(4 * 44100 * int(sys.argv[2]))); w.close()' "$1" "$2"
}

# start_fermatad MUSIC STATE PORT [FLAGS...]: fermatad on the paced null output in the background ($pid), returning
# once it answers mpc on 127.0.0.1:PORT.
start_fermatad() {
    local music=$1 state=$2
    port=$3
    shift 3
    "$fermatad" --music "$music" --state "$state" --output null --listen "127.0.0.1:$port" --socket "" --board off \
        "$@" 2> "$work/daemon.log" &
    pid=$!
    until mpc -q -p "$port" status > /dev/null 2>&1; do sleep 0.1; done
}

# play_track NAME: scans the music folder, queues NAME and plays it.
play_track() {
    mpc -q -p "$port" update --wait && mpc -q -p "$port" add "$1" && mpc -q -p "$port" play
}
