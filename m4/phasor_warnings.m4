dnl phasor_warnings.m4: the warning set every build uses; --enable-werror (CI) makes them fatal.
AC_DEFUN([PHASOR_CHECK_WARNINGS], [
  AC_ARG_ENABLE([werror], [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
    [], [enable_werror=no])
  WARN_CFLAGS=
  for flag in -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-unused-parameter; do
    AX_CHECK_COMPILE_FLAG([$flag], [WARN_CFLAGS="$WARN_CFLAGS $flag"], [], [-Werror])
  done
  AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
  AC_SUBST([WARN_CFLAGS])
])
