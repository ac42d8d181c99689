#!/bin/bash
# The sound card vanishes mid-track and comes back (snd-aloop unbound from and bound to its driver through sysfs,
# as a USB DAC unplugged and plugged in again): fermatad keeps the heard position while the card is gone and resumes
# there. Prints "key value" lines to $out/device-loss.txt for the Swift test to judge.
#   device-loss.sh OUT FERMATAD
set -u
out=$1 fermatad=$2 log=$1/daemon.log
. "$(dirname "$0")/common.sh"
result=$out/device-loss.txt
driver=/sys/bus/platform/drivers/snd_aloop
start_daemon /tmp/state plughw:CARD=Loopback,DEV=0 || exit 1
mpc -q update --wait && mpc -q add a.wav && mpc -q play || exit 1
wait_for 40 elapsed_at_least 4 || { echo "never reached 4 s: $(mpd status)" >&2; exit 1; }
echo "before $(field elapsed)" >> "$result"
echo snd_aloop.0 > $driver/unbind   # returns once fermatad has closed the PCM
echo "lost $(field elapsed)" >> "$result"
sleep 3
echo "gone $(field elapsed) $(field state)" >> "$result"
echo snd_aloop.0 > $driver/bind
wait_for 15 log_has "audio device back" || echo "never back" >> "$result"
echo "restored $(field elapsed)" >> "$result"
sleep 2
echo "later $(field elapsed) $(field state)" >> "$result"
stop_daemon >> "$result"
