#!/usr/bin/env bash
#   scripts/check-fresh-root.sh [--main-only | --tests-only] [--then COMMAND] [--keep]
# Proves the README's two commands on a fresh Debian 12 machine: builds a
# minimal Debian 12 root (mmdebstrap, minbase: no compiler, no git, no
# recommends), copies a clean clone of this checkout's HEAD and ../shared
# into it, and runs there as root, in a chroot with a clean environment:
#
#   bash scripts/setup.sh && bash scripts/main.sh   (main job, default suite)
#   bash scripts/setup.sh && bash scripts/test.sh   (the whole test suite)
#
# The root gets only the host's network settings: /etc/resolv.conf and the
# host's CA certificates (the package registries are reached through that
# trust store). Nothing is cached between runs, so a package that setup.sh
# forgets fails here even when this host has it. --then COMMAND runs one
# more command line in the root after them, where their builds are (CI: the
# soak test in build-asan/). Exits non-zero when any command fails. Needs
# root (chroot, mounts); installs mmdebstrap on the host if missing. --keep
# leaves the root in place and prints its path. Took 55 minutes on 2 cores
# (2026-12-06): the main job's command 14, the tests' 40, most of it the
# sanitizer build.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(cd "$repo/.." && pwd)/shared"
run_main=1 run_tests=1 keep=0 then=""
while [ $# -gt 0 ]; do
  case "$1" in
    --main-only) run_tests=0 ;;
    --tests-only) run_main=0 ;;
    --keep) keep=1 ;;
    --then)
      [ $# -ge 2 ] || { echo "check-fresh-root: --then needs a command" >&2; exit 2; }
      then="$2"; shift ;;
    *) echo "check-fresh-root: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [ "$(id -u)" -ne 0 ]; then
  echo "check-fresh-root: needs root (mmdebstrap, chroot and mounts)" >&2
  exit 2
fi
if [ ! -d "$shared" ]; then
  echo "check-fresh-root: no shared/ folder beside the checkout ($shared)" >&2
  exit 2
fi
if ! command -v mmdebstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

# The root with its packages, build and results takes about 5 GiB.
free_kib=$(df --output=avail -k /var/tmp | tail -1)
if [ "$free_kib" -lt $((8 * 1024 * 1024)) ]; then
  echo "check-fresh-root: /var/tmp has $((free_kib / 1024)) MiB free; the fresh root needs 8 GiB" >&2
  exit 2
fi
root="$(mktemp -d /var/tmp/pdbench-fresh-root.XXXXXX)"
remove_root() {
  # Mounts live in the chroot's own mount namespace (below) and end with
  # it, so nothing of the host's can be reached from here; --one-file-system
  # makes sure of it.
  if [ "$keep" -eq 1 ]; then
    echo "check-fresh-root: root kept at $root" >&2
  else
    rm -rf --one-file-system "$root"
  fi
}
trap remove_root EXIT
started=$SECONDS
phase() { echo "check-fresh-root: [$((SECONDS - started)) s] $*" >&2; }

phase "bootstrapping a minimal Debian 12 root in $root"
mmdebstrap --quiet --variant=minbase bookworm "$root"

# No service a package installs starts in the root: it would outlive the
# check and share this host's ports (a chroot's usual policy-rc.d). The
# tests start the PostgreSQL server they need themselves.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"

phase "copying the network settings, a clean clone and shared/"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/usr/local/share/ca-certificates" "$root/etc/ssl/certs"
cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/" 2>/dev/null || true
mkdir -p "$root/work"
git clone --quiet --no-hardlinks "$repo" "$root/work/main"
cp -r "$shared" "$root/work/shared"

# Runs one command line as a fresh machine's root would: inside the root,
# in a mount namespace of its own (proc, sys, dev and a /dev/shm for
# Chromium), with no variable of this host's environment but CI.
in_root() {
  unshare --mount --propagation private -- bash -c '
    set -e
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      bash -c "cd /work/main && $*"' in_root "$root" "$@"
}

status=0
# step NAME LINE: run LINE in the root; a failure fails the check.
step() {
  phase "$1: $2"
  if in_root "$2"; then phase "$1 passed"; else phase "$1 FAILED"; status=1; fi
}
[ "$run_main" -eq 0 ] || step "README command, main job" "bash scripts/setup.sh && bash scripts/main.sh"
[ "$run_tests" -eq 0 ] || step "README command, tests" "bash scripts/setup.sh && bash scripts/test.sh"
[ -z "$then" ] || step "then" "$then"
phase "done (exit $status)"
exit "$status"
