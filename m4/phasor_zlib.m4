dnl phasor_zlib.m4: zlib's crc32 guards the log's uncompressed headers.
AC_DEFUN([PHASOR_CHECK_ZLIB], [
  PKG_CHECK_MODULES([ZLIB], [zlib], [], [AC_MSG_ERROR([zlib not found (Debian: zlib1g-dev)])])
])
