dnl phasor_zstd.m4: zstd compresses the log frames (writer) and decodes them (reader).
AC_DEFUN([PHASOR_CHECK_ZSTD], [
  PKG_CHECK_MODULES([ZSTD], [libzstd >= 1.4.0], [],
    [AC_MSG_ERROR([libzstd >= 1.4 not found (Debian: libzstd-dev)])])
])
