dnl phasor_criterion.m4: Criterion runs the unit tests; without it `make check` skips them.
AC_DEFUN([PHASOR_CHECK_CRITERION], [
  PKG_CHECK_MODULES([CRITERION], [criterion], [have_criterion=yes], [have_criterion=no])
  AM_CONDITIONAL([HAVE_CRITERION], [test "x$have_criterion" = xyes])
])
