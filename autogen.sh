#!/bin/sh
# Regenerate the build system from configure.ac and the Makefile.am/Makefile.inc files.
set -e
cd "$(dirname "$0")"
mkdir -p config
autoreconf --install --force --warnings=all,no-portability
