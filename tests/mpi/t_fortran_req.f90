! t_fortran_req.f90: the hand-written Fortran wrappers (`use mpi`): Waitany, Waitsome,
! Testsome, Testany, Testall loops over a ring exchange, Comm_idup, persistent requests with
! Startall/Start, Request_free, Pcontrol (checked by check_events.py).
program t_fortran_req
  use mpi
  implicit none
  integer :: ierr, rank, np, left, right, round, done, idx, outc, i, nc, req
  integer :: r(4), p(2), inds(4), a(2), b(2), c, d
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)
  a = (/ rank, 10 * rank /)

  do round = 1, 4
    call MPI_Irecv(b(1), 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, r(1), ierr)
    call MPI_Irecv(b(2), 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, r(2), ierr)
    call MPI_Isend(a(1), 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, r(3), ierr)
    call MPI_Isend(a(2), 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, r(4), ierr)
    ! every rank has sent: the polls below end soon even on oversubscribed cores
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    done = 0
    do while (done < 4)
      select case (round)
      case (1)
        call MPI_Waitany(4, r, idx, st, ierr)
        done = done + 1
      case (2)
        call MPI_Waitsome(4, r, outc, inds, sts, ierr)
        done = done + outc
      case (3)
        call MPI_Testsome(4, r, outc, inds, MPI_STATUSES_IGNORE, ierr)
        done = done + outc
      case default
        call MPI_Testany(4, r, idx, flag, MPI_STATUS_IGNORE, ierr)
        if (flag .and. idx /= MPI_UNDEFINED) done = done + 1
      end select
    end do
  end do

  call MPI_Comm_idup(MPI_COMM_WORLD, nc, req, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Barrier(nc, ierr)
  call MPI_Comm_free(nc, ierr)

  call MPI_Send_init(a(1), 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, p(1), ierr)
  call MPI_Recv_init(c, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, p(2), ierr)
  call MPI_Startall(2, p, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, p, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Start(p(2), ierr)
  call MPI_Start(p(1), ierr)
  call MPI_Wait(p(1), MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(p(2), st, ierr)
  call MPI_Request_free(p(1), ierr)
  call MPI_Request_free(p(2), ierr)
  call MPI_Pcontrol(3)

  d = b(1) + b(2) + c
  call MPI_Reduce(d, i, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a,i0)') 't_fortran_req: ', np, ' processes, sum ', i
  call MPI_Finalize(ierr)
end program t_fortran_req
