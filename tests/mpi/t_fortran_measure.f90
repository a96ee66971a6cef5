! t_fortran_measure.f90: every blocking collective phasor can perform (PHASOR_STEPS=measure),
! called from Fortran (mpif.h-style `use mpi`), with MPI_IN_PLACE wherever the standard allows
! it, derived datatypes (a strided row, whole columns) and sizes that cross the libraries' algorithm
! thresholds. Rank 0 prints a hash of every rank's result per call; run_steps_tests.sh
! compares a plain run with one under PHASOR_STEPS=measure (bit-identical) and checks through
! `phasor dump` that the Fortran calls were performed by phasor (flag measured).
program t_fortran_measure
  use mpi
  implicit none
  integer, parameter :: maxp = 16, nsizes = 3
  integer, parameter :: sizes(nsizes) = (/ 1, 300, 20000 /)
  integer :: ierr, rank, np, n, si, i, k, root, colt, rowt
  integer :: cnt(maxp), dsp(maxp), cnt2(maxp), dsp2(maxp)
  double precision, allocatable :: d(:), dr(:), grid(:,:)
  integer, allocatable :: x(:), xr(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np > maxp) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)

  do si = 1, nsizes
    n = sizes(si)
    allocate(d(n * np), dr(n * np), x(n * np), xr(n * np), grid(3, n))
    call fill()

    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Bcast(d, n, MPI_DOUBLE_PRECISION, np / 2, MPI_COMM_WORLD, ierr)
    call outd('bcast', d, n)

    call fill()
    dr = 0
    call MPI_Reduce(d, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, np - 1, MPI_COMM_WORLD, ierr)
    call outd('reduce sum', dr, merge(n, 0, rank == np - 1))
    if (rank == 0) then
      call MPI_Reduce(MPI_IN_PLACE, d, n, MPI_DOUBLE_PRECISION, MPI_PROD, 0, MPI_COMM_WORLD, ierr)
    else
      call MPI_Reduce(d, dr, n, MPI_DOUBLE_PRECISION, MPI_PROD, 0, MPI_COMM_WORLD, ierr)
    end if
    call outd('reduce in place prod', d, merge(n, 0, rank == 0))

    call fill()
    call MPI_Allreduce(d, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call outd('allreduce sum', dr, n)
    call MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_INTEGER, MPI_BXOR, MPI_COMM_WORLD, ierr)
    call outi('allreduce in place bxor', x, n)

    call fill()
    call MPI_Scan(d, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call outd('scan sum', dr, n)
    call MPI_Scan(MPI_IN_PLACE, x, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call outi('scan in place max', x, n)
    call fill()
    xr = 0
    call MPI_Exscan(x, xr, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call outi('exscan sum', xr, merge(0, n, rank == 0))

    call fill()
    call MPI_Reduce_scatter_block(d, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call outd('reduce_scatter_block sum', dr, n)
    call MPI_Reduce_scatter_block(MPI_IN_PLACE, d, n, MPI_DOUBLE_PRECISION, MPI_MIN, &
                                  MPI_COMM_WORLD, ierr)
    call outd('reduce_scatter_block in place min', d, n)
    do i = 1, np
      cnt(i) = max(1, n - i + 1)
    end do
    call fill()
    call MPI_Reduce_scatter(x, xr, cnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call outi('reduce_scatter sum', xr, cnt(rank + 1))

    call fill()
    call MPI_Allgather(x, n, MPI_INTEGER, xr, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call outi('allgather', xr, n * np)
    x(rank * n + 1:rank * n + n) = -rank - 1
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call outi('allgather in place', x, n * np)
    call ragged(cnt, dsp)
    call fill()
    xr = 0
    call MPI_Allgatherv(x, cnt(rank + 1), MPI_INTEGER, xr, cnt, dsp, MPI_INTEGER, &
                        MPI_COMM_WORLD, ierr)
    call outi('allgatherv', xr, n * np)

    call fill()
    call MPI_Alltoall(x, n, MPI_INTEGER, xr, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call outi('alltoall', xr, n * np)
    call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call outi('alltoall in place', x, n * np)
    ! each rank sends k+1 elements to rank k (fewer when n is small), from strided offsets
    do k = 1, np
      cnt(k) = min(n, k)
      dsp(k) = (k - 1) * n
      cnt2(k) = min(n, rank + 1)
      dsp2(k) = (k - 1) * n
    end do
    call fill()
    xr = 0
    call MPI_Alltoallv(x, cnt, dsp, MPI_INTEGER, xr, cnt2, dsp2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call outi('alltoallv', xr, n * np)

    root = mod(1, np)
    call fill()
    xr = 0
    call MPI_Gather(x, n, MPI_INTEGER, xr, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call outi('gather', xr, merge(n * np, 0, rank == root))
    call ragged(cnt, dsp)
    if (rank == root) then
      xr = 0
      xr(dsp(rank + 1) + 1:dsp(rank + 1) + cnt(rank + 1)) = 77
      call MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, xr, cnt, dsp, MPI_INTEGER, root, &
                       MPI_COMM_WORLD, ierr)
    else
      call MPI_Gatherv(x, cnt(rank + 1), MPI_INTEGER, xr, cnt, dsp, MPI_INTEGER, root, &
                       MPI_COMM_WORLD, ierr)
    end if
    call outi('gatherv in place', xr, merge(n * np, 0, rank == root))

    root = np - 1
    call fill()
    xr = 0
    call MPI_Scatter(x, n, MPI_INTEGER, xr, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call outi('scatter', xr, n)
    if (rank == root) then
      call MPI_Scatter(x, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      call outi('scatter in place', x, n * np)
    else
      call MPI_Scatter(x, n, MPI_INTEGER, xr, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      call outi('scatter in place', xr, n)
    end if
    call fill()
    xr = 0
    call MPI_Scatterv(x, cnt, dsp, MPI_INTEGER, xr, cnt(rank + 1), MPI_INTEGER, root, &
                      MPI_COMM_WORLD, ierr)
    call outi('scatterv', xr, cnt(rank + 1))

    ! a derived datatype: row 2 of grid(3, n) is n doubles with stride 3
    call MPI_Type_vector(n, 1, 3, MPI_DOUBLE_PRECISION, rowt, ierr)
    call MPI_Type_commit(rowt, ierr)
    call fill()
    call MPI_Bcast(grid(2, 1), 1, rowt, 0, MPI_COMM_WORLD, ierr)
    call outd('bcast row', grid, 3 * n)
    ! whole columns as one element each (a contiguous derived type) through Allgather
    call MPI_Type_contiguous(3, MPI_DOUBLE_PRECISION, colt, ierr)
    call MPI_Type_commit(colt, ierr)
    call fill()
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, grid, n / np, colt, &
                       MPI_COMM_WORLD, ierr)
    call outd('allgather in place columns', grid, 3 * n)
    call MPI_Type_free(colt, ierr)
    call MPI_Type_free(rowt, ierr)

    deallocate(d, dr, x, xr, grid)
  end do

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)

contains

  ! rank-dependent values whose sums depend on the order of the operations
  subroutine fill()
    integer :: j
    do j = 1, size(d)
      d(j) = 1d0 / dble(j + rank + 1) + dble(mod(rank, 3)) * 1d-9 * dble(j)
      x(j) = ieor(j * 7919, rank * 40503)
    end do
    do j = 1, size(grid, 2)
      grid(:, j) = (/ dble(j), 1d0 / dble(j + 2 * rank + 1), -dble(rank) /)
    end do
  end subroutine fill

  ! ragged blocks for the v-variants: block k holds min(n, k) elements at (k-1)*n
  subroutine ragged(c, o)
    integer, intent(out) :: c(maxp), o(maxp)
    integer :: j
    do j = 1, np
      c(j) = min(n, j)
      o(j) = (j - 1) * n
    end do
  end subroutine ragged

  subroutine outd(what, v, m)
    character(*), intent(in) :: what
    double precision, intent(in) :: v(*)
    integer, intent(in) :: m
    integer(8) :: h
    integer :: j
    h = 1469598103_8
    do j = 1, m
      h = ieor(ishftc(h, 7), transfer(v(j), 0_8))
    end do
    call emit(what, h)
  end subroutine outd

  subroutine outi(what, v, m)
    character(*), intent(in) :: what
    integer, intent(in) :: v(*)
    integer, intent(in) :: m
    integer(8) :: h
    integer :: j
    h = 1469598103_8
    do j = 1, m
      h = ieor(ishftc(h, 7), int(v(j), 8))
    end do
    call emit(what, h)
  end subroutine outi

  ! every rank's hash, gathered to rank 0 and printed on one line
  subroutine emit(what, h)
    character(*), intent(in) :: what
    integer(8), intent(in) :: h
    integer(8) :: all(maxp)
    integer :: j
    call MPI_Gather(h, 1, MPI_INTEGER8, all, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) write (*, '(a,a,i0,a,*(1x,z16.16))') what, ' n=', n, ':', (all(j), j = 1, np)
  end subroutine emit

end program t_fortran_measure
