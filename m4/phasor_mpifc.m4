dnl phasor_mpifc.m4: the MPI Fortran wrapper, optional: it builds the Fortran test and example
dnl (tests/mpi/t_fortran.f90, examples/halo.f90); without it everything else still builds.
dnl MPIFC defaults to MPICC's sibling (mpicc.mpich -> mpif90.mpich); HAVE_MPIFC when it
dnl compiles and links an mpif.h program.
AC_DEFUN([PHASOR_CHECK_MPIFC], [
  AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper for the Fortran tests (default: from MPICC)])
  AS_IF([test -z "$MPIFC"], [MPIFC=`echo "$MPICC" | sed 's|mpicc\(@<:@^/@:>@*\)$|mpif90\1|'`])
  AS_CASE([$MPIFC], [/*], [], [MPIFC=`command -v "$MPIFC" 2>/dev/null || echo no`])
  AC_MSG_CHECKING([for a working MPI Fortran wrapper])
  phasor_fc_ok=no
  AS_IF([test "x$MPIFC" != xno && test -x "$MPIFC"], [
    rm -f conftest_fc.f90 conftest_fc
    printf '      program t\n      include %smpif.h%s\n      integer ierr\n      call MPI_Init(ierr)\n      call MPI_Finalize(ierr)\n      end\n' "'" "'" > conftest_fc.f90
    AS_IF(["$MPIFC" -o conftest_fc conftest_fc.f90 >&AS_MESSAGE_LOG_FD 2>&1], [phasor_fc_ok=yes])
    rm -f conftest_fc.f90 conftest_fc
  ])
  AS_IF([test $phasor_fc_ok = yes], [AC_MSG_RESULT([$MPIFC])],
        [AC_MSG_RESULT([no (Fortran tests skipped)]); MPIFC=])
  AC_SUBST([MPIFC])
  AM_CONDITIONAL([HAVE_MPIFC], [test $phasor_fc_ok = yes])
])
