#!/bin/sh
set -eu
rsync -a build/ server:/srv/app/
