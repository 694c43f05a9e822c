# Sourced by the benchmarks that need a real-time device (control.sh, realtime.sh). Given
# $work, start_pulse points HOME, the runtime directories and RECNOTES_HOME into it, starts a
# user-space PulseAudio server with a null sink named "bench", and sets $pulse (its pid, for
# the caller's cleanup to kill) and $socket. The caller writes the .asoundrc it needs.
start_pulse() {
  local name=$1
  mkdir -p "$work/pulse" "$work/home"
  export HOME=$work/home XDG_RUNTIME_DIR=$work/pulse PULSE_RUNTIME_PATH=$work/pulse RECNOTES_HOME=$work/store
  socket=$work/pulse/native
  pulseaudio -n --daemonize=no --exit-idle-time=-1 --disable-shm=yes --use-pid-file=no --log-level=error \
    -L "module-null-sink sink_name=bench rate=48000 channels=1" \
    -L "module-native-protocol-unix auth-anonymous=1 socket=$socket" </dev/null >/dev/null 2>&1 &
  pulse=$!
  for _ in $(seq 200); do [[ -S $socket ]] && break; sleep 0.05; done
  [[ -S $socket ]] || { echo "$name: pulseaudio did not start" >&2; exit 1; }
}
