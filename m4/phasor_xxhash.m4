dnl phasor_xxhash.m4: XXH3-64 hashes each frame's compressed payload (log format version 6;
dnl XXH3's output is stable from xxhash 0.8.0 on).
AC_DEFUN([PHASOR_CHECK_XXHASH], [
  PKG_CHECK_MODULES([XXHASH], [libxxhash >= 0.8.0], [],
    [AC_MSG_ERROR([libxxhash >= 0.8.0 not found (Debian: libxxhash-dev)])])
])
