#!/bin/sh
# The report and board tests drive a real headless Chromium (tests/_browser.py). Make sure one
# is there: nothing to do if DDCARDS_CHROMIUM names an executable file (one naming none is
# refused) or, without it, `chromium` is on the PATH; otherwise install Debian's package (as
# root, or through sudo). Elsewhere: say what to do.
set -eu
if [ -n "${DDCARDS_CHROMIUM:-}" ]; then
    if [ -f "$DDCARDS_CHROMIUM" ] && [ -x "$DDCARDS_CHROMIUM" ]; then
        exit 0
    fi
    # printf, not echo: dash's echo would read backslashes in the path as escapes
    printf 'ensure_chromium: DDCARDS_CHROMIUM=%s is no executable file: point it at a Chromium binary, or unset it to use (or install) the chromium on the PATH\n' \
        "$DDCARDS_CHROMIUM" >&2
    exit 1
fi
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_chromium: no chromium on the PATH and no apt-get here: install Chromium, or set" \
         "DDCARDS_CHROMIUM to a Chromium binary, for the report and board tests" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "ensure_chromium: installing chromium needs root (or sudo): apt-get install chromium" >&2
        exit 1
    fi
    SUDO="sudo"
fi
echo "ensure_chromium: installing Debian's chromium (the report and board tests drive it)" >&2
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium
