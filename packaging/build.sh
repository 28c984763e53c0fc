#!/usr/bin/env bash
# Build the standalone one-folder app with PyInstaller: dist/ltm-desktop/ltm-desktop.
# Then prove it is complete: --version and --self-test run from the bundle.
#
#   packaging/build.sh            # PYTHON=python3.11 packaging/build.sh for another Python
#
# PyInstaller lives in its own venv (build/pyinstaller-venv), never in the project's:
# it is neither a runtime nor a test dependency. Not run by .ci/run (it takes minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=build/pyinstaller-venv
BUNDLE=dist/ltm-desktop
BUNDLE_ABS="$PWD/$BUNDLE"
started=$(date +%s)

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade "pyinstaller>=6.10,<7" .
"$VENV/bin/python" -m pip install --quiet --no-deps --force-reinstall .  # this checkout, always

rm -rf "$BUNDLE"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller \
    packaging/pyinstaller/ltm_desktop.spec
built=$(date +%s)

echo "== $BUNDLE/ltm-desktop --version"
"$BUNDLE/ltm-desktop" --version
echo "== $BUNDLE/ltm-desktop --self-test   (from /, away from this checkout)"
(cd / && "$BUNDLE_ABS/ltm-desktop" --self-test)
echo "== summary"
echo "pyinstaller $("$VENV/bin/pyinstaller" --version), $("$VENV/bin/python" --version)"
echo "build time: $((built - started)) s (venv, install and PyInstaller)"
echo "bundle size: $(du -sh "$BUNDLE" | cut -f1) ($(find "$BUNDLE" -type f | wc -l) files)"
