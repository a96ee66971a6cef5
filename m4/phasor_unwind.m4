dnl phasor_unwind.m4: libunwind captures call sites in the shim. The shim dlopen()s it with
dnl RTLD_LOCAL (its backtrace/_Unwind_* exports must not interpose on the application's), so
dnl configure finds the header and the run-time soname rather than linking -lunwind.
AC_DEFUN([PHASOR_CHECK_UNWIND], [
  PKG_CHECK_MODULES([UNWIND], [libunwind], [],
    [AC_MSG_ERROR([libunwind not found (Debian: libunwind-dev)])])
  AC_MSG_CHECKING([for the soname of libunwind])
  phasor_unw_so=
  for phasor_d in `$CC -print-search-dirs 2>/dev/null | sed -n 's/^libraries: =//p' | tr ':' ' '` \
                  /usr/lib/$host_alias /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    if test -e "$phasor_d/libunwind.so"; then
      phasor_unw_so=`readelf -d "$phasor_d/libunwind.so" 2>/dev/null | sed -n 's/.*Library soname: .\(.*\).$/\1/p'`
      test -n "$phasor_unw_so" && break
    fi
  done
  AS_IF([test -z "$phasor_unw_so"], [phasor_unw_so=libunwind.so.8])
  AC_MSG_RESULT([$phasor_unw_so])
  AC_DEFINE_UNQUOTED([PHASOR_LIBUNWIND_SONAME], ["$phasor_unw_so"],
    [soname the shim dlopen()s for unw_backtrace])
  AC_SEARCH_LIBS([dlopen], [dl])
])
