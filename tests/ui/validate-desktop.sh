#!/bin/sh
# validate-desktop.sh — the installed .desktop and AppStream metainfo pass
# their validators.
#
# usage: validate-desktop.sh BUILD_DIR
# Installs the project into a temporary DESTDIR (meson install --no-rebuild),
# then runs desktop-file-validate on share/applications/org.ctrecon.CtRecon.desktop
# and appstreamcli validate (offline) on share/metainfo/org.ctrecon.CtRecon.metainfo.xml,
# and compiles the installed GSettings schema strictly.
# Exit 77 (skipped) when a validator is not installed (Debian packages
# desktop-file-utils, appstream).
set -eu

build_dir=${1:?usage: validate-desktop.sh BUILD_DIR}

for tool in desktop-file-validate appstreamcli glib-compile-schemas; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool not found (packages desktop-file-utils, appstream, libglib2.0-bin)"
    exit 77
  fi
done

dest=$(mktemp -d "${TMPDIR:-/tmp}/ctrecon-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT INT TERM

# post-install scripts (schema compile, icon cache) are skipped with DESTDIR
DESTDIR="$dest" meson install -C "$build_dir" --no-rebuild --quiet >"$dest.log" 2>&1 || {
  cat "$dest.log"; rm -f "$dest.log"; echo "FAIL: meson install"; exit 1; }
rm -f "$dest.log"

desktop=$(find "$dest" -path '*/share/applications/org.ctrecon.CtRecon.desktop' | head -n 1)
metainfo=$(find "$dest" -path '*/share/metainfo/org.ctrecon.CtRecon.metainfo.xml' | head -n 1)
schemas=$(find "$dest" -path '*/share/glib-2.0/schemas' -type d | head -n 1)
[ -n "$desktop" ] || { echo "FAIL: no .desktop installed"; exit 1; }
[ -n "$metainfo" ] || { echo "FAIL: no metainfo installed"; exit 1; }
[ -n "$schemas" ] || { echo "FAIL: no GSettings schema installed"; exit 1; }

echo "desktop-file-validate $desktop"
out=$(desktop-file-validate "$desktop" 2>&1) || { echo "$out"; echo "FAIL: desktop-file-validate"; exit 1; }
[ -z "$out" ] || echo "$out"

echo "appstreamcli validate --no-net $metainfo"
appstreamcli validate --no-net "$metainfo" || { echo "FAIL: appstreamcli validate"; exit 1; }

echo "glib-compile-schemas --strict --dry-run $schemas"
glib-compile-schemas --strict --dry-run "$schemas" || { echo "FAIL: schema"; exit 1; }
echo "ok"
