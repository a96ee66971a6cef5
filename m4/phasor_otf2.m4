# PHASOR_CHECK_OTF2: optional libotf2 (Debian: libotf2-trace-dev) for `phasor export --format
# otf2`. --with-otf2 requires it, --without-otf2 skips it, default: use it when found.
AC_DEFUN([PHASOR_CHECK_OTF2], [
AC_ARG_WITH([otf2],
  [AS_HELP_STRING([--with-otf2], [write OTF2 archives with libotf2 (default: when found)])],
  [], [with_otf2=check])
OTF2_LIBS=
have_otf2=no
AS_IF([test "x$with_otf2" != xno], [
  AC_CHECK_HEADER([otf2/otf2.h], [
    AC_CHECK_LIB([otf2], [OTF2_Archive_Open], [have_otf2=yes; OTF2_LIBS=-lotf2])])
  AS_IF([test "x$have_otf2" = xno && test "x$with_otf2" = xyes],
    [AC_MSG_ERROR([--with-otf2: libotf2 not found (install libotf2-trace-dev)])])])
AS_IF([test "x$have_otf2" = xyes], [AC_DEFINE([HAVE_OTF2], [1], [libotf2 is available])])
AC_SUBST([OTF2_LIBS])
AM_CONDITIONAL([HAVE_OTF2], [test "x$have_otf2" = xyes])
AC_MSG_NOTICE([OTF2 export: $have_otf2])
])
