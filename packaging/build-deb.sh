#!/bin/sh
# Builds the Debian package: build-deb/ctrecon_<version>_<arch>.deb (or into
# the folder given as $1), then lints it.
#
#  1. installs what is missing (apt; sudo when not root): the packaging tools
#     (dpkg-dev, debhelper, lintian) and debian/control's Build-Depends;
#  2. copies the checkout (tracked files and untracked ones git does not
#     ignore; build folders never) into a temporary folder and runs
#     dpkg-buildpackage there (source and binary), so the checkout and its
#     parent stay clean;
#  3. copies the .deb files, the source package, .changes and .buildinfo to
#     the output folder and runs lintian on the .changes (source and binary
#     packages, pedantic, info and experimental tags shown): exits non-zero
#     on a lintian error.
#
# Needs no CUDA (the package is built with -Dcuda=disabled) and no
# ../shared.  DEB_BUILD_OPTIONS=nocheck skips the package's build-time test
# suites (core, io; about 20 s).  Test the result with
#   meson test -C build --suite packaging
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
out=${1:-$src/build-deb}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
apt_updated=""
apt_update() {
  if [ -z "$apt_updated" ]; then
    $SUDO apt-get update -qq
    apt_updated=1
  fi
}

# 1. packaging tools, then the Build-Depends (only what is missing)
missing=""
for p in dpkg-dev debhelper lintian; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -n "$missing" ]; then
  echo "ctrecon: installing$missing"
  apt_update
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

profiles=""
case " ${DEB_BUILD_OPTIONS:-} " in
  *" nocheck "*) profiles="nocheck" ;;
esac
if ! dpkg-checkbuilddeps ${profiles:+-P "$profiles"} >/dev/null 2>&1; then
  echo "ctrecon: installing the missing build dependencies (debian/control)"
  apt_update
  $SUDO apt-get build-dep -y -qq --no-install-recommends ${profiles:+-P "$profiles"} "$src" >/dev/null
  dpkg-checkbuilddeps ${profiles:+-P "$profiles"}
fi

# The package version is the project version.
version=$(dpkg-parsechangelog -S Version)
meson_version=$(sed -n "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'\([^']*\)'.*/\1/p" meson.build | head -n 1)
if [ "$version" != "$meson_version" ]; then
  echo "ctrecon: debian/changelog is at $version, meson.build at $meson_version:" >&2
  echo "  add a changelog entry first (dch -v $meson_version)" >&2
  exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

# 2. build in a copy of the checkout (old results go first: a failed build
#    leaves no stale package behind for the tests)
mkdir -p "$out"
rm -f "$out"/ctrecon_* "$out"/ctrecon-dbgsym_* "$out/build.log"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctrecon-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
tree="$work/ctrecon-$version"
mkdir "$tree"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # tracked files deleted in the working tree are skipped (--ignore-failed-read)
  git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$tree"
else
  tar --exclude='./build*' --exclude='./obj-*' --exclude='./.git' -cf - . | tar -xf - -C "$tree"
fi

echo "ctrecon: building ctrecon_${version}_${arch}.deb"
(cd "$tree" && dpkg-buildpackage -uc -us -jauto ${profiles:+-P"$profiles"}) >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log"
  echo "ctrecon: dpkg-buildpackage failed" >&2
  exit 1
}

# 3. results and lintian
cp "$work"/*.deb "$work/ctrecon_${version}.dsc" "$work/ctrecon_${version}.tar.xz" \
   "$work/ctrecon_${version}_${arch}.changes" "$work/ctrecon_${version}_${arch}.buildinfo" "$out/"
cp "$work/build.log" "$out/build.log"
echo "ctrecon: lintian"
status=0
lintian --display-info --pedantic --display-experimental --fail-on error "$out/ctrecon_${version}_${arch}.changes" || status=$?
if [ "$status" -ne 0 ]; then
  echo "ctrecon: lintian reports errors" >&2
  exit "$status"
fi
echo "ctrecon: wrote $out/ctrecon_${version}_${arch}.deb"
