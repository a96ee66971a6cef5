dnl phasor_mpi.m4: find an MPI C library without making everything an mpicc build, because
dnl the offline tools must never link MPI. MPICC names the wrapper to take flags from
dnl (mpicc, mpicc.openmpi, mpicc.mpich); MPIRUN the launcher the tests use.
AC_DEFUN([PHASOR_CHECK_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper to take MPI flags from (default: mpicc)])
  AC_ARG_VAR([MPIRUN], [MPI launcher for the integration tests (default: matches MPICC)])
  dnl AC_PATH_PROGS would ignore a relative MPICC=mpicc.mpich: resolve it ourselves.
  AC_MSG_CHECKING([for the MPI C compiler wrapper])
  AS_IF([test -z "$MPICC"], [MPICC=mpicc])
  AS_CASE([$MPICC], [/*], [], [MPICC=`command -v "$MPICC" 2>/dev/null || echo no`])
  AS_IF([test "x$MPICC" = xno || test ! -x "$MPICC"],
        [AC_MSG_RESULT([no]); AC_MSG_ERROR([no MPI C compiler wrapper found; set MPICC])])
  AC_MSG_RESULT([$MPICC])
  AC_MSG_CHECKING([MPI flavour of $MPICC])
  AS_IF([$MPICC --showme:version >/dev/null 2>&1], [
      PHASOR_MPI_FLAVOUR=openmpi
      MPI_CFLAGS=`$MPICC --showme:compile`
      MPI_LIBS=`$MPICC --showme:link`
    ], [$MPICC -compile-info >/dev/null 2>&1], [
      PHASOR_MPI_FLAVOUR=mpich
      dnl -compile-info prints the whole compiler command line; keep -I/-D, and -L/-l/-Wl.
      MPI_CFLAGS=`$MPICC -compile-info | tr ' ' '\n' | grep -E '^-(I|D)' | tr '\n' ' '`
      MPI_LIBS=`$MPICC -link-info | tr ' ' '\n' | grep -E '^-(L|l|Wl)' | tr '\n' ' '`
    ], [AC_MSG_ERROR([$MPICC is neither Open MPI's nor MPICH's wrapper])])
  AC_MSG_RESULT([$PHASOR_MPI_FLAVOUR])
  AS_IF([test -z "$MPIRUN"], [
    mpicc_dir=`AS_DIRNAME(["$MPICC"])`
    mpicc_sfx=`echo "$MPICC" | sed -n 's/.*mpicc\(\..*\)$/\1/p'`
    AC_PATH_PROGS([MPIRUN], [mpirun$mpicc_sfx mpiexec$mpicc_sfx mpirun], [no], [$mpicc_dir$PATH_SEPARATOR$PATH])
  ])
  save_CPPFLAGS=$CPPFLAGS; save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $MPI_CFLAGS"; LIBS="$MPI_LIBS $LIBS"
  AC_MSG_CHECKING([that MPI links from plain $CC])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[return PMPI_Init(0, 0);]])],
    [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no]); AC_MSG_ERROR([cannot link MPI with $MPI_CFLAGS $MPI_LIBS])])
  CPPFLAGS=$save_CPPFLAGS; LIBS=$save_LIBS
  AC_SUBST([MPI_CFLAGS])
  AC_SUBST([MPI_LIBS])
  AC_SUBST([PHASOR_MPI_FLAVOUR])
  AC_DEFINE_UNQUOTED([PHASOR_MPIRUN], ["$MPIRUN"], [MPI launcher found at configure time])
  AM_CONDITIONAL([MPI_OPENMPI], [test "x$PHASOR_MPI_FLAVOUR" = xopenmpi])
])
