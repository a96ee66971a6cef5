! t_fortran_colls.f90: generated Fortran wrappers whose arguments need converting (`use mpi`):
! Alltoallw's datatype arrays, Gatherv with MPI_IN_PLACE at the root, Reduce_scatter,
! Sendrecv from MPI_ANY_SOURCE, Iprobe / Mprobe / Mrecv with MPI_STATUS_IGNORE, a periodic
! Cart_create and a neighbourhood collective (checked by check_events.py).
program t_fortran_colls
  use mpi
  implicit none
  integer, parameter :: maxp = 16
  integer :: ierr, rank, np, left, right, i, msg, req, ring, total
  integer :: sb(maxp), rb(maxp), cnt(maxp), dsp(maxp), typ(maxp), dims(1)
  integer :: st(MPI_STATUS_SIZE)
  logical :: flag, periods(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (np > maxp) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)
  sb = rank
  rb = 0

  do i = 1, np
    cnt(i) = 1
    dsp(i) = 4 * (i - 1)            ! bytes, for Alltoallw
    typ(i) = MPI_INTEGER
  end do
  call MPI_Alltoallw(sb, cnt, dsp, typ, rb, cnt, dsp, typ, MPI_COMM_WORLD, ierr)

  do i = 1, np
    dsp(i) = i - 1                  ! elements, for Gatherv
  end do
  if (rank == 0) then
    rb(1) = sb(1)
    call MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INTEGER, rb, cnt, dsp, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, ierr)
  else
    call MPI_Gatherv(sb, 1, MPI_INTEGER, rb, cnt, dsp, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Reduce_scatter(sb, rb, cnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  call MPI_Sendrecv(sb, 2, MPI_INTEGER, right, 4, rb, 2, MPI_INTEGER, MPI_ANY_SOURCE, 4, &
                    MPI_COMM_WORLD, st, ierr)

  call MPI_Isend(sb, 3, MPI_INTEGER, right, 9, MPI_COMM_WORLD, req, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)    ! keeps the Iprobe loop short
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Mprobe(left, 9, MPI_COMM_WORLD, msg, st, ierr)
  call MPI_Mrecv(rb, 3, MPI_INTEGER, msg, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  dims(1) = np
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call MPI_Neighbor_alltoall(sb, 1, MPI_INTEGER, rb, 1, MPI_INTEGER, ring, ierr)
  total = rb(1) + rb(2)
  call MPI_Comm_free(ring, ierr)

  if (rank == 0) write (*, '(a,i0,a,i0)') 't_fortran_colls: ', np, ' processes, got ', total
  call MPI_Finalize(ierr)
end program t_fortran_colls
