#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests that need a real batch
# system: Debian's Slurm and MUNGE packages, the controller (slurmctld), the
# node daemon (slurmd) and munged started as local processes of the caller
# (root), everything they write kept under one folder.
#
#   scripts/slurm/cluster.sh install      Debian packages (quiet when present)
#   scripts/slurm/cluster.sh start DIR    configure under DIR, start, wait for
#                                         the node to be idle; prints
#                                         "export SLURM_CONF=DIR/slurm.conf"
#   scripts/slurm/cluster.sh stop DIR     stop the daemons DIR's pid files name
#   scripts/slurm/cluster.sh selftest     install, start, run a job array,
#                                         check it, stop
#
# start owns DIR's subfolders state, spool, run, munge and log (emptied at
# each start) and writes DIR/slurm.conf; anything else in DIR is left alone.
#
# Typical use:  eval "$(scripts/slurm/cluster.sh start /tmp/c)"; sbatch ...;
#               scripts/slurm/cluster.sh stop /tmp/c
#
# Exit status: 0 success; 1 failure (daemon logs printed); 2 bad usage;
# 77 the cluster cannot be had here for a reason outside this script (not
# root, packages neither installed nor installable), with the reason on
# stderr: CI reports it as a skip.
#
# The configuration needs no systemd, no cgroups and no name service:
# processes are tracked by proctrack/linuxproc (the parent/child tree from
# /proc), tasks are not confined (task/none), the daemons talk over
# 127.0.0.1 on two ports found free at each start, and MUNGE runs its own
# munged with a fresh key and socket under DIR, so a system munged (or none)
# does not matter. Environment: SLURM_START_TIMEOUT (seconds to wait for the
# node to be idle, default 60), SLURM_SELFTEST_TIMEOUT (seconds for the
# selftest's job array, default 120).
set -euo pipefail

PACKAGES=(slurmctld slurmd slurm-client munge)
START_TIMEOUT=${SLURM_START_TIMEOUT:-60}
SELFTEST_TIMEOUT=${SLURM_SELFTEST_TIMEOUT:-120}
SKIP=77

say() { printf 'slurm: %s\n' "$*" >&2; }
die() { printf 'slurm: error: %s\n' "$*" >&2; exit 1; }
skip() { printf 'slurm: skipped: %s\n' "$*" >&2; exit "$SKIP"; }
help_text() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }
usage() {
  help_text >&2
  exit 2
}

# ---------------------------------------------------------------- install

missing_packages() {
  local p status
  for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || printf '%s\n' "$p"
  done
}

have_package_lists() {
  compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null
}

cmd_install() {
  local missing log policy_tmp=""
  mapfile -t missing < <(missing_packages)
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  [ "$(id -u)" -eq 0 ] || skip "Slurm packages missing (${missing[*]}) and not root, so apt-get cannot install them"
  command -v apt-get >/dev/null || skip "Slurm packages missing (${missing[*]}) and no apt-get on this machine"
  say "installing ${missing[*]} (Debian packages, no recommends)"
  log=$(mktemp)
  # The packages' maintainer scripts would start system-wide munged, slurmctld
  # and slurmd services; a policy-rc.d that denies every start keeps them
  # from doing so (only while installing, and only if the machine has none).
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy_tmp=/usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    printf '#!/bin/sh\nexit 101\n' >"$policy_tmp"
    chmod 755 "$policy_tmp"
  fi
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o Dpkg::Use-Pty=0)
  local ok=0
  if ! have_package_lists; then
    say "no package lists yet: apt-get update"
    "${apt[@]}" update >>"$log" 2>&1 || true
  fi
  if "${apt[@]}" install --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
    ok=1
  else
    # Stale lists name files the mirror no longer has: refresh once, retry.
    say "install failed; apt-get update and one retry"
    if "${apt[@]}" update >>"$log" 2>&1 &&
      "${apt[@]}" install --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
      ok=1
    fi
  fi
  if [ -n "$policy_tmp" ]; then
    rm -f "$policy_tmp"
    trap - EXIT
  fi
  if [ "$ok" -ne 1 ]; then
    tail -n 30 "$log" >&2
    # Packages that cannot be downloaded or are not in this machine's
    # distribution are outside this script's reach; any other failure
    # (dpkg, a maintainer script) is a real one.
    if grep -qE 'Failed to fetch|Unable to fetch|Temporary failure resolving|Could not resolve|Could not connect|Unable to locate package|has no installation candidate' "$log"; then
      rm -f "$log"
      skip "apt-get cannot fetch ${missing[*]} (its output above)"
    fi
    rm -f "$log"
    die "apt-get could not install ${missing[*]} (its output above)"
  fi
  rm -f "$log"
  mapfile -t missing < <(missing_packages)
  [ ${#missing[@]} -eq 0 ] || die "apt-get succeeded but ${missing[*]} still not installed"
  say "installed: $(slurm_version)"
}

slurm_version() {
  # sinfo --version needs a configuration; the daemons' -V does not.
  slurmd -V 2>/dev/null || echo "slurm (version unknown)"
}

# ------------------------------------------------------------------ start

# A TCP port nothing on this machine uses (listening or connected), below
# the kernel's ephemeral range so that no outgoing connection takes it later.
free_port() {
  local lo=20000 hi=32000 used port i
  if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then
    read -r eph _ </proc/sys/net/ipv4/ip_local_port_range
    [ "$eph" -gt $((lo + 1000)) ] && hi=$((eph - 1))
  fi
  used=$({ ss -Htan 2>/dev/null || true; } | awk '{print $4}' | sed 's/.*://' | sort -u)
  for i in $(seq 1 200); do
    port=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo)))
    grep -qx "$port" <<<"$used" && continue
    grep -qx "$port" <<<"${EXCLUDE_PORTS:-}" && continue
    # Nothing answers there either (covers sockets ss could not list).
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    printf '%s\n' "$port"
    return 0
  done
  die "no free TCP port found between $lo and $hi"
}

# The pid in FILE if that process is alive and is the program NAME.
live_pid() {
  local file=$1 name=$2 pid exe
  [ -s "$file" ] || return 1
  read -r pid <"$file" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -d "/proc/$pid" ] || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
  exe=${exe% (deleted)}
  case "${exe##*/}" in
    "$name" | "$name"-wlm) printf '%s\n' "$pid" ;;
    *) return 1 ;;
  esac
}

# The node's hardware as slurmd sees it (CPUs, sockets, cores, threads,
# memory), so that the node is not drained for a configuration that claims
# more than it has.
node_hardware() {
  local line
  line=$(slurmd -C 2>/dev/null | head -n 1 || true)
  if [[ "$line" == NodeName=* ]]; then
    # Drop NodeName= and any UpTime=; keep CPUs= Boards= ... RealMemory=.
    tr ' ' '\n' <<<"$line" | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|RealMemory)=' | tr '\n' ' '
  else
    local cpus mem
    cpus=$(nproc)
    mem=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
    printf 'CPUs=%s RealMemory=%s' "$cpus" "$mem"
  fi
}

write_config() {
  local dir=$1 host=$2 ctld_port=$3 slurmd_port=$4 hw
  hw=$(node_hardware)
  cat >"$dir/slurm.conf" <<EOF
# One-node cluster written by scripts/slurm/cluster.sh start $dir
ClusterName=local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups here: track job processes through /proc, do not confine tasks.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Schedule a submitted batch job at once instead of up to 3 s later.
SchedulerParameters=batch_sched_delay=0
# sbatch --wait polls every 2 s while MinJobAge/3 is at most 2; with the
# default 300 it sleeps 2, 8, then 32 s between polls (a 10-second array
# waited 42 s). Finished jobs are forgotten 6 s or more after they end.
MinJobAge=6
MailProg=/bin/true
MaxArraySize=100001
MaxJobCount=100000
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host $hw State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

print_logs() {
  local dir=$1 f
  for f in "$dir"/log/munged.log "$dir"/log/slurmctld.log "$dir"/log/slurmd.log "$dir"/log/*.out; do
    [ -f "$f" ] || continue
    printf '\n----- %s (last 40 lines)\n' "$f" >&2
    tail -n 40 "$f" >&2
  done
}

start_failed() {
  local dir=$1
  shift
  printf 'slurm: error: %s\n' "$*" >&2
  print_logs "$dir"
  stop_daemons "$dir" quiet
  exit 1
}

cmd_start() {
  local dir=$1 host ctld_port slurmd_port deadline state pid
  [ "$(id -u)" -eq 0 ] || skip "starting slurmctld and slurmd as local processes needs root (SlurmUser=root)"
  for prog in munged mungekey slurmctld slurmd sinfo; do
    command -v "$prog" >/dev/null || die "$prog not found: run '$0 install' first"
  done
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  # A previous run in DIR that was killed before its stop leaves daemons and
  # pid files: stop those daemons (only those), then start afresh.
  stop_daemons "$dir" quiet
  rm -rf "$dir/state" "$dir/spool" "$dir/run" "$dir/munge" "$dir/log"
  mkdir -p "$dir/state" "$dir/spool" "$dir/run" "$dir/munge" "$dir/log"
  # Clients not running as root must reach the socket: the folder is
  # searchable by all, the key in it readable by root only.
  chmod 755 "$dir/munge"

  host=$(hostname -s 2>/dev/null || uname -n)
  host=${host%%.*}
  [ -n "$host" ] || die "this machine has no host name"
  ctld_port=$(free_port)
  slurmd_port=$(EXCLUDE_PORTS=$ctld_port free_port)
  write_config "$dir" "$host" "$ctld_port" "$slurmd_port"

  mungekey --create --keyfile="$dir/munge/munge.key" 2>"$dir/log/mungekey.log" ||
    start_failed "$dir" "mungekey could not create $dir/munge/munge.key: $(cat "$dir/log/mungekey.log")"
  chmod 400 "$dir/munge/munge.key"
  # --force: run although the folders above DIR may be writable by others
  # (/tmp is), which munged otherwise refuses.
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" 2>>"$dir/log/munged.log" ||
    start_failed "$dir" "munged did not start"
  wait_for_pid "$dir/run/munged.pid" munged || start_failed "$dir" "munged wrote no pid file"
  munge -S "$dir/munge/munge.socket" -n </dev/null | unmunge -S "$dir/munge/munge.socket" >/dev/null 2>&1 ||
    start_failed "$dir" "munged runs but cannot encode and decode a credential"

  export SLURM_CONF="$dir/slurm.conf"
  # -c: start from an empty state (no jobs or nodes of an earlier run).
  slurmctld -c -f "$SLURM_CONF" 2>>"$dir/log/slurmctld.log" || start_failed "$dir" "slurmctld did not start"
  wait_for_pid "$dir/run/slurmctld.pid" slurmctld || start_failed "$dir" "slurmctld exited or wrote no pid file"
  slurmd -N "$host" -f "$SLURM_CONF" 2>>"$dir/log/slurmd.log" || start_failed "$dir" "slurmd did not start"
  wait_for_pid "$dir/run/slurmd.pid" slurmd || start_failed "$dir" "slurmd exited or wrote no pid file"

  deadline=$((SECONDS + START_TIMEOUT))
  state=""
  while :; do
    state=$(sinfo -h -n "$host" -o '%T' 2>/dev/null || true)
    [ "$state" = idle ] && break
    for pid in slurmctld slurmd munged; do
      live_pid "$dir/run/$pid.pid" "$pid" >/dev/null || start_failed "$dir" "$pid died while the node came up"
    done
    [ "$SECONDS" -lt "$deadline" ] ||
      start_failed "$dir" "node $host not idle after ${START_TIMEOUT}s (state: '${state:-no answer from slurmctld}')"
    sleep 0.5
  done
  say "cluster up in $dir: node $host idle, slurmctld on 127.0.0.1:$ctld_port, slurmd on :$slurmd_port"
  printf 'export SLURM_CONF=%q\n' "$SLURM_CONF"
}

# Daemons write their pid file after forking; wait until it names a live
# process of the right program (or time out after 15 s).
wait_for_pid() {
  local file=$1 name=$2 i
  for i in $(seq 1 150); do
    live_pid "$file" "$name" >/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# ------------------------------------------------------------------- stop

# PID is a process that has not ended (a zombie has: a daemon that
# detached is the child of PID 1, which may reap it late).
running() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
  [ -n "$state" ] && [ "$state" != Z ]
}

stop_daemons() {
  local dir=$1 quiet=${2:-} name pid pids=() i
  # Jobs first, while the controller still answers: their slurmstepd
  # processes belong to this cluster too.
  if [ -f "$dir/slurm.conf" ] && live_pid "$dir/run/slurmctld.pid" slurmctld >/dev/null &&
    command -v scancel >/dev/null; then
    local until=$((SECONDS + 10))
    SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --quiet --user="$(id -un)" 2>/dev/null || true
    while [ "$SECONDS" -lt "$until" ] &&
      [ -n "$(SLURM_CONF="$dir/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null || true)" ]; do
      sleep 0.2
    done
  fi
  for name in slurmd slurmctld munged; do
    if pid=$(live_pid "$dir/run/$name.pid" "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
      [ -n "$quiet" ] || say "stopping $name (pid $pid)"
    fi
  done
  for pid in "${pids[@]}"; do
    for i in $(seq 1 100); do
      running "$pid" || break
      sleep 0.1
    done
    if running "$pid"; then
      say "pid $pid did not end within 10 s of SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" "$dir/run/munged.pid"
}

cmd_stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd -P)
  stop_daemons "$dir"
}

# --------------------------------------------------------------- selftest

selftest_dir=""
selftest_cleanup() {
  [ -n "$selftest_dir" ] || return 0
  stop_daemons "$selftest_dir/cluster" quiet
  rm -rf "$selftest_dir"
}

cmd_selftest() {
  local t0 t_install t_start t_job dir out job i got bad=0
  t0=$SECONDS
  cmd_install
  t_install=$((SECONDS - t0))
  dir=$(mktemp -d "${TMPDIR:-/tmp}/slurm-selftest.XXXXXX")
  selftest_dir=$dir
  chmod 755 "$dir"
  trap selftest_cleanup EXIT
  t0=$SECONDS
  local env_lines
  env_lines=$(cmd_start "$dir/cluster") || exit $?
  eval "$env_lines"
  t_start=$((SECONDS - t0))

  out=$dir/out
  mkdir -p "$out"
  cat >"$dir/task.sh" <<'EOF'
#!/bin/sh
printf '%s %s\n' "$SLURM_ARRAY_TASK_ID" "$SLURM_ARRAY_TASK_COUNT" >"$1/task-$SLURM_ARRAY_TASK_ID.tmp"
mv "$1/task-$SLURM_ARRAY_TASK_ID.tmp" "$1/task-$SLURM_ARRAY_TASK_ID"
EOF
  t0=$SECONDS
  if ! job=$(timeout "$SELFTEST_TIMEOUT" sbatch --parsable --wait --array=0-7%4 --job-name=selftest \
    --chdir="$dir" --output="$dir/cluster/log/job-%A_%a.out" "$dir/task.sh" "$out" 2>"$dir/sbatch.err"); then
    cat "$dir/sbatch.err" >&2
    squeue >&2 || true
    print_logs "$dir/cluster"
    die "the job array did not finish within ${SELFTEST_TIMEOUT}s or a task failed (sbatch output above)"
  fi
  t_job=$((SECONDS - t0))
  for i in 0 1 2 3 4 5 6 7; do
    got=$(cat "$out/task-$i" 2>/dev/null || echo "(no file)")
    if [ "$got" != "$i 8" ]; then
      say "task $i wrote '$got', expected '$i 8'"
      bad=$((bad + 1))
    fi
  done
  if [ "$bad" -ne 0 ]; then
    print_logs "$dir/cluster"
    die "$bad of 8 array tasks wrote a wrong or no result"
  fi
  cmd_stop "$dir/cluster" 2>/dev/null
  printf 'slurm selftest passed: %s, job array %s (0-7%%4): 8 of 8 tasks wrote their index and count; install %ss, start %ss, array %ss\n' \
    "$(slurm_version)" "${job%%;*}" "$t_install" "$t_start" "$t_job"
}

# ------------------------------------------------------------------- main

[ $# -ge 1 ] || usage
case "$1" in
  install) [ $# -eq 1 ] || usage; cmd_install ;;
  start) [ $# -eq 2 ] || usage; cmd_start "$2" ;;
  stop) [ $# -eq 2 ] || usage; cmd_stop "$2" ;;
  selftest) [ $# -eq 1 ] || usage; cmd_selftest ;;
  -h | --help | help) help_text ;;
  *) usage ;;
esac
