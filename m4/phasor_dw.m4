dnl phasor_dw.m4: elfutils' libdw turns call-site offsets into function, file and line
dnl offline (phasor report); never linked into the shim.
AC_DEFUN([PHASOR_CHECK_DW], [
  PKG_CHECK_MODULES([DW], [libdw >= 0.170], [],
    [AC_MSG_ERROR([libdw not found (Debian: libdw-dev)])])
])
