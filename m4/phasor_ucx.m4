# PHASOR_CHECK_UCX: the UCX headers (Debian: libucx-dev), only for the test module that records
# what MPICH's ch4:ucx netmod sends (tests/mpi/ucx_tagtrace.c); nothing links against UCX.
AC_DEFUN([PHASOR_CHECK_UCX], [
have_ucp=no
AC_CHECK_HEADER([ucp/api/ucp.h], [have_ucp=yes])
AM_CONDITIONAL([HAVE_UCP], [test "x$have_ucp" = xyes])
AC_MSG_NOTICE([UCX tag trace (MPICH wire tests): $have_ucp])
])
