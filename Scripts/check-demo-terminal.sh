#!/usr/bin/env bash
# Checks the live dashboard of KVOMediatorDemo in a real terminal: runs it in a detached tmux session of a
# fixed size, types keys as a person would (add, select, pause, faster, cancel), reads the screen, then quits
# with `q` and checks that the demo exited 0 and gave the terminal back (raw mode off, cursor shown,
# alternate screen left). Every wait is bounded; on a failure it prints the screen it saw.
#
#   Scripts/check-demo-terminal.sh
#   KVO_SCRATCH_PATH=.build-demo Scripts/check-demo-terminal.sh   # build in another scratch folder
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=${KVO_SCRATCH_PATH:-.build}
columns=100
rows=30

if ! command -v tmux >/dev/null; then
    apt-get update -qq && apt-get install -y -qq tmux >/dev/null
fi

swift build --scratch-path "$scratch" --product KVOMediatorDemo -Xswiftc -warnings-as-errors
binary="$(swift build --scratch-path "$scratch" --show-bin-path)/KVOMediatorDemo"

work=$(mktemp -d)
# A tmux server of its own, whose socket goes with the temporary folder.
tmux_() { tmux -S "$work/tmux.socket" -f "$work/tmux.conf" "$@"; }
cleanup() {
    tmux_ kill-server 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# No status line (the pane is the whole window), and a pane that stays once its process has ended, so that
# the screen can still be read.
printf 'set -g status off\nset -g remain-on-exit on\n' >"$work/tmux.conf"

screen() { tmux_ capture-pane -p -t demo; }
fail() {
    printf '\ncheck-demo-terminal: FAILED: %s\n--- screen (%sx%s) ---\n' "$1" "$columns" "$rows" >&2
    screen >&2 || true
    printf -- '--- end of screen ---\n' >&2
    exit 1
}
# wait_for SECONDS DESCRIPTION PATTERN...: waits until the screen shows every pattern (fixed strings).
wait_for() {
    local seconds=$1 description=$2
    shift 2
    local deadline=$((SECONDS + seconds)) pattern missing
    while :; do
        missing=""
        local text
        text=$(screen)
        for pattern in "$@"; do
            grep -qF -- "$pattern" <<<"$text" || missing=$pattern
        done
        [[ -z $missing ]] && return 0
        ((SECONDS < deadline)) || fail "$description: no \"$missing\" on the screen after ${seconds}s"
        sleep 0.2
    done
}
press() {
    tmux_ send-keys -t demo "$@"
    sleep 0.3
}

started=$SECONDS
tmux_ new-session -d -s demo -x "$columns" -y "$rows" \
    "stty -g >'$work/stty.before'; '$binary' --downloads 5; status=\$?; stty -g >'$work/stty.after'
     echo \$status >'$work/status'
     for i in \$(seq 50); do [ -e '$work/checked' ] && break; sleep 0.1; done; exit \$status"

wait_for 20 "the dashboard" \
    "KVOMediator live demo" "nothing polls" "q quit" "downloads: 5" \
    "observations: style, change.keyPathName" "registrations: controller" \
    "main-actor  progress" "block       receivedBytes" "observe   album.flac"

press a                     # add a download: the sixth, dataset.csv
wait_for 5 "adding a download" "downloads: 6" "observe   dataset.csv"
press j                     # select the second download, movie.mkv
press p                     # pause it
press +                     # faster: 1x to 2x
wait_for 5 "selecting, pausing and speeding up" \
    "> movie.mkv" "paused" "speed 2x" "selected movie.mkv"
press c                     # cancel the selected download: removed from the list and unobserved
wait_for 5 "cancelling" "downloads: 5" "cancelled 1" "unobserve movie.mkv"
echo "--- the dashboard after add, select, pause, faster and cancel ---"
screen

press q
# Once the demo has ended, the wrapper writes its exit status and waits (at most 5 s) for the checks of the
# terminal and the screen: they are read while the pane lives, since tmux reports a dead pane's cursor as
# hidden and writes "Pane is dead" over its screen.
deadline=$((SECONDS + 10))
until [[ -s $work/status ]]; do
    ((SECONDS < deadline)) || fail "the demo did not end within 10 s of q"
    sleep 0.2
done
status=$(<"$work/status")
modes=$(tmux_ display-message -p -t demo 'alternate screen #{alternate_on}, cursor shown #{cursor_flag}')
after=$(screen)
touch "$work/checked"
[[ $status == 0 ]] || fail "the demo exited with status $status after q"
[[ $modes == "alternate screen 0, cursor shown 1" ]] || fail "terminal not restored: $modes"
[[ -s $work/stty.after ]] && cmp -s "$work/stty.before" "$work/stty.after" ||
    fail "terminal settings after the demo differ from before it (raw mode left on?)"
grep -qF "released: yes" <<<"$after" || fail "no release report after q: $after"
deadline=$((SECONDS + 10))
until [[ $(tmux_ display-message -p -t demo '#{pane_dead}') == 1 ]]; do
    ((SECONDS < deadline)) || fail "the pane's process did not end"
    sleep 0.2
done

printf '\ncheck-demo-terminal: passed in %ds: dashboard, keys, q, exit status 0, terminal restored\n' \
    $((SECONDS - started))
