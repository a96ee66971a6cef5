#!/bin/sh
# autogen.sh: regenerate configure and Makefile.in (never committed) from configure.ac.
set -e
cd "$(dirname "$0")"
autoreconf -fi
