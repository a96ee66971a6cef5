dnl phasor_fuzzing.m4: --enable-fuzzing builds the libFuzzer targets (tests/fuzz/) and
dnl instruments every library for them (coverage, ASan, UBSan). Needs clang (CC=clang).
AC_DEFUN([PHASOR_CHECK_FUZZING], [
  AC_ARG_ENABLE([fuzzing], [AS_HELP_STRING([--enable-fuzzing],
    [build the libFuzzer targets of tests/fuzz with ASan and UBSan (CC=clang)])],
    [], [enable_fuzzing=no])
  FUZZ_LDFLAGS=
  AS_IF([test "x$enable_fuzzing" = xyes], [
    save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -fsanitize=fuzzer-no-link"
    AC_MSG_CHECKING([whether $CC builds for libFuzzer])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); AC_MSG_ERROR([--enable-fuzzing needs clang with libFuzzer (CC=clang; apt-get install clang libclang-rt-14-dev)])])
    CFLAGS=$save_CFLAGS
    SAN_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    FUZZ_LDFLAGS="-fsanitize=fuzzer,address,undefined"
  ])
  AC_SUBST([FUZZ_LDFLAGS])
  AM_CONDITIONAL([FUZZING], [test "x$enable_fuzzing" = xyes])
])
