dnl phasor_jansson.m4: jansson reads and writes the JSON model files (phasor-probe, predict).
AC_DEFUN([PHASOR_CHECK_JANSSON], [
  PKG_CHECK_MODULES([JANSSON], [jansson >= 2.10], [],
    [AC_MSG_ERROR([jansson >= 2.10 not found (Debian: libjansson-dev)])])
])
