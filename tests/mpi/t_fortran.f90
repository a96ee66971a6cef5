! t_fortran.f90: an mpif.h program the shim must record completely and exactly once:
! Send/Recv with MPI_STATUS_IGNORE, Bcast, Allreduce with MPI_IN_PLACE, Comm_split,
! Irecv/Isend + Waitall with MPI_STATUSES_IGNORE, Comm_free (checked by check_events.py).
program t_fortran
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, sub, srank, ssize, i, total
  integer :: msg(4), got(2), reqs(2), val
  double precision :: params(3)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! 16 bytes from rank 0 to rank 1
  if (nprocs > 1) then
    if (rank == 0) then
      msg = (/ 1, 2, 3, 4 /)
      call MPI_Send(msg, 4, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
    else if (rank == 1) then
      call MPI_Recv(msg, 4, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
  end if

  ! 24 bytes from rank 0 to all
  params = 0d0
  if (rank == 0) params = (/ 0.5d0, 1.5d0, 2.5d0 /)
  call MPI_Bcast(params, 3, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)

  ! in place: sum of ranks
  val = rank
  call MPI_Allreduce(MPI_IN_PLACE, val, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  ! even and odd ranks, ascending
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_rank(sub, srank, ierr)
  call MPI_Comm_size(sub, ssize, ierr)

  ! a ring inside the split communicator: 8 bytes each way
  msg(1:2) = (/ rank, srank /)
  call MPI_Irecv(got, 2, MPI_INTEGER, mod(srank + ssize - 1, ssize), 3, sub, reqs(1), ierr)
  call MPI_Isend(msg, 2, MPI_INTEGER, mod(srank + 1, ssize), 3, sub, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)

  call MPI_Allreduce(got(1), total, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call MPI_Comm_free(sub, ierr)

  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,f4.1,a,i0)') 't_fortran: ', nprocs, ' processes, rank sum ', val, &
      ', bcast ', params(1) + params(2) + params(3), ', ring sum ', total
  end if
  call MPI_Finalize(ierr)
end program t_fortran
