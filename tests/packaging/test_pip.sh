#!/bin/sh
# The Python package as a user installs it (issue 32): `pip install .` of
# this source tree into a fresh virtual environment (meson-python builds the
# engine into the extension module; pip fetches the build requirements from
# PyPI), then the package's own test files run against the INSTALLED
# package: no PYTHONPATH, run from outside the source tree.
#   test_pip.sh SOURCE_ROOT WORK_DIR
# Exit 77 (skipped) when no virtual environment can be made or PyPI cannot
# be reached; 1 when the build, the import or a test fails.
set -u
src=$1
dir=$2/pip-venv
rm -rf "$dir"
/usr/bin/python3 -m venv "$dir" >/dev/null 2>&1 || { echo "no venv (python3-venv missing?): skipped"; exit 77; }
log=$dir/pip.log
unreachable () {
  grep -qE "NewConnectionError|Temporary failure in name resolution|No matching distribution found|Network is unreachable" "$log"
}
if ! "$dir/bin/pip" install --disable-pip-version-check "$src" scipy tifffile >"$log" 2>&1; then
  if unreachable; then
    echo "PyPI cannot be reached (see $log): skipped"
    exit 77
  fi
  tail -40 "$log"
  echo "FAIL pip install ."
  exit 1
fi
echo "ok   pip install . built and installed: $(grep -o 'Successfully installed.*' "$log")"
cd "$dir" || exit 1
unset PYTHONPATH
where=$("$dir/bin/python" -c 'import ctrecon, os; print(os.path.dirname(ctrecon.__file__))') || { echo "FAIL import ctrecon"; exit 1; }
case $where in
  "$dir"/*) echo "ok   import ctrecon from the environment: $where" ;;
  *) echo "FAIL ctrecon imported from $where, not the environment"; exit 1 ;;
esac
status=0
for t in "$src"/tests/python/test_*.py; do
  CTR_PY_BUILT=1 "$dir/bin/python" "$t" >"$dir/$(basename "$t").log" 2>&1
  rc=$?
  tail -1 "$dir/$(basename "$t").log" | sed "s|^|$(basename "$t"): |"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    cat "$dir/$(basename "$t").log"
    status=1
  fi
done
exit $status
