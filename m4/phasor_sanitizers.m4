dnl phasor_sanitizers.m4: --enable-sanitizers builds everything with ASan and UBSan.
AC_DEFUN([PHASOR_CHECK_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers], [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined])],
    [], [enable_sanitizers=no])
  SAN_CFLAGS=
  AS_IF([test "x$enable_sanitizers" = xyes], [
    SAN_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  ])
  AC_SUBST([SAN_CFLAGS])
])
