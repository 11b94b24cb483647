#!/usr/bin/env bash
# Install what the test suite needs, then editblocks with its dev extra in .venv, then run the whole suite,
# one pytest worker per core (pytest-xdist; the tests that share one costly thing run in one worker: xdist_group).
#
# On Debian (and Ubuntu) the system packages the tests need are installed with apt when missing
# (non-interactively; with sudo unless run as root): Chromium at /usr/bin/chromium for the review
# page's browser tests, python3-venv for `python3 -m venv`, and git. Elsewhere, install them yourself
# and point EDITBLOCKS_CHROMIUM at your Chromium (or Chrome) when it is not /usr/bin/chromium.
# Arguments are passed on to pytest (`scripts/test.sh -m "not slow"`).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
if [ -n "${EDITBLOCKS_CHROMIUM:-}" ]; then
    if [ ! -x "$EDITBLOCKS_CHROMIUM" ]; then
        echo "EDITBLOCKS_CHROMIUM=$EDITBLOCKS_CHROMIUM is not an executable file: point it at a Chromium" >&2
        exit 1
    fi
elif [ ! -x /usr/bin/chromium ]; then
    missing+=(chromium)
fi
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
command -v git >/dev/null || missing+=(git)

if [ ${#missing[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null; then
        echo "the tests need ${missing[*]}, and this system has no apt-get to install them: install them," >&2
        echo "and set EDITBLOCKS_CHROMIUM to a Chromium when it is not at /usr/bin/chromium" >&2
        exit 1
    fi
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    echo "installing ${missing[*]} with apt-get" >&2
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

python3 -m venv .venv
.venv/bin/pip install -q -e '.[dev]'
exec .venv/bin/python -m pytest -n auto --dist loadgroup "$@"
