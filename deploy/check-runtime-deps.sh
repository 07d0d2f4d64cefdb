#!/usr/bin/env bash
# Prints the Debian packages that the shared libraries of each BINARY come from (ldd, then
# dpkg -S on every resolved path; deduplicated; packages already in the debian:12 base image
# left out) and checks that the runtime stage of deploy/Dockerfile installs every one of them.
#
#   deploy/check-runtime-deps.sh [--dockerfile FILE] BINARY...
#
# Exit status: 0 when the Dockerfile's runtime `apt-get install` lists every package; 1 when it
# misses one (each is named) or a library does not resolve on this host; 2 on a usage error.
# Run it on binaries built on Debian 12 (the image's build stage is Debian 12 too, so it links
# the same libraries).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dockerfile="$here/Dockerfile"

usage() { echo "usage: $0 [--dockerfile FILE] BINARY..." >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dockerfile) [ $# -ge 2 ] || usage; dockerfile=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
[ -f "$dockerfile" ] || { echo "check-runtime-deps: no Dockerfile at $dockerfile" >&2; exit 2; }
if ! command -v ldd >/dev/null || ! command -v dpkg >/dev/null; then
  echo "check-runtime-deps: needs ldd and dpkg (a Debian host)" >&2; exit 2
fi

# The packages of the debian:12 image itself: `debootstrap --variant=minbase bookworm` (what
# the official image is made from), listed with `chroot rootfs dpkg-query -W -f='${Package}\n'`
# on 2026-11-24. A library from one of these needs no line in the Dockerfile.
BASE_PACKAGES="
adduser apt base-files base-passwd bash bsdutils coreutils dash debconf debian-archive-keyring
debianutils diffutils dpkg e2fsprogs findutils gcc-12-base gpgv grep gzip hostname init-system-helpers
libacl1 libapt-pkg6.0 libattr1 libaudit-common libaudit1 libblkid1 libbz2-1.0 libc-bin libc6
libcap-ng0 libcap2 libcom-err2 libcrypt1 libdb5.3 libdebconfclient0 libext2fs2 libffi8 libgcc-s1
libgcrypt20 libgmp10 libgnutls30 libgpg-error0 libhogweed6 libidn2-0 liblz4-1 liblzma5 libmd0
libmount1 libnettle8 libp11-kit0 libpam-modules libpam-modules-bin libpam-runtime libpam0g
libpcre2-8-0 libseccomp2 libselinux1 libsemanage-common libsemanage2 libsepol2 libsmartcols1
libss2 libstdc++6 libsystemd0 libtasn1-6 libtinfo6 libudev1 libunistring2 libuuid1 libxxhash0
libzstd1 login logsave mawk mount ncurses-base ncurses-bin passwd perl-base sed sysvinit-utils tar
tzdata usr-is-merged util-linux util-linux-extra zlib1g
"

base=" $(tr -s ' \n' '  ' <<<"$BASE_PACKAGES") "
status=0

# ldd of every binary: "LIB PATH" pairs. A library that does not resolve is an error.
pairs=()
for bin in "$@"; do
  [ -f "$bin" ] || { echo "check-runtime-deps: no file $bin" >&2; exit 2; }
  if ! lddout=$(ldd "$bin" 2>&1); then
    echo "check-runtime-deps: ldd $bin failed: $lddout" >&2; exit 2
  fi
  while read -r lib arrow path _; do
    [ "$arrow" = "=>" ] || continue
    if [ "$path" = "not" ]; then
      echo "check-runtime-deps: $bin: $lib not found on this host" >&2; status=1; continue
    fi
    pairs+=("$lib $path")
  done <<<"$lddout"
done

# Owners of every path, in one dpkg -S call (each call reads dpkg's whole file database). A path
# is tried as ldd printed it, as its target (alternatives such as libblas.so.3) and as its /usr
# twin: Debian 12 is merged-/usr, and a package owns a file under either /lib or /usr/lib.
declare -A owner=()     # path -> package
candidates() { printf '%s\n' "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; }
mapfile -t all < <(for pr in "${pairs[@]}"; do candidates "${pr#* }"; done | sort -u)
while IFS= read -r line; do
  case "$line" in diversion*|"") continue ;; esac
  pkgs=${line%%: /*}; path=/${line#*: /}
  pkg=${pkgs%%,*}; pkg=${pkg%%:*}           # the first owner, without its architecture
  [ -n "${owner[$path]:-}" ] || owner[$path]=$pkg
done < <(dpkg -S "${all[@]}" 2>/dev/null || true)

declare -A need=()      # package -> the libraries that need it
for pr in "${pairs[@]}"; do
  lib=${pr%% *}; path=${pr#* }; pkg=
  while IFS= read -r cand; do
    if [ -n "${owner[$cand]:-}" ]; then pkg=${owner[$cand]}; break; fi
  done < <(candidates "$path")
  if [ -z "$pkg" ]; then
    echo "check-runtime-deps: $path ($lib) belongs to no Debian package" >&2; status=1; continue
  fi
  case "$base" in *" $pkg "*) continue ;; esac
  case " ${need[$pkg]:-} " in *" $lib "*) ;; *) need[$pkg]="${need[$pkg]:-} $lib" ;; esac
done

# The runtime stage is everything after the last FROM; join continued lines, split commands on
# && and ;, and take the words of every `apt-get install` that are not options.
listed=$(awk 'toupper($1) == "FROM" { stage = "" } { stage = stage $0 "\n" } END { printf "%s", stage }' \
           "$dockerfile" \
         | sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' \
         | sed -e 's/&&/\n/g' -e 's/;/\n/g' \
         | awk '{ for (i = 1; i < NF; i++) if ($i == "apt-get" && $(i + 1) == "install") {
                    for (j = i + 2; j <= NF; j++) if ($j !~ /^-/) print $j; break } }' \
         | sed -e 's/[=:].*//' | sort -u)

missing=()
for pkg in $(printf '%s\n' "${!need[@]}" | sort); do
  read -r -a libs <<<"${need[$pkg]}"
  if [ ${#libs[@]} -gt 4 ]; then
    printf '%-20s %s (and %d more)\n' "$pkg" "${libs[*]:0:3}" $((${#libs[@]} - 3))
  else
    printf '%-20s %s\n' "$pkg" "${libs[*]}"
  fi
  if ! grep -qxF "$pkg" <<<"$listed"; then missing+=("$pkg"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "check-runtime-deps: the runtime stage of $dockerfile does not install: ${missing[*]}" >&2
  status=1
elif [ $status -eq 0 ]; then
  echo "check-runtime-deps: OK, $dockerfile installs all ${#need[@]} packages ($*)" >&2
fi
exit $status
