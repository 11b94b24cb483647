#!/bin/sh
set -e
rsync -a build/ server:/srv/app/
