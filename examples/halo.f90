! halo.f90: a 1-D Jacobi smoother with `use mpi`: each iteration swaps one ghost cell with
! each neighbour (Irecv/Isend/Waitall, MPI_PROC_NULL at the ends) and sums the residual
! with Allreduce. Prints a checksum that does not depend on the number of processes' timing.
!   mpif90 -o halo halo.f90 && LD_PRELOAD=.../libphasor.so mpirun -np 4 ./halo
program halo
  use mpi
  implicit none
  integer, parameter :: n = 64, iters = 10
  integer :: ierr, rank, nprocs, left, right, nloc, first, i, it
  integer :: reqs(4)
  double precision, allocatable :: u(:), unew(:)
  double precision :: res, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! block distribution of n cells; the first n mod nprocs ranks get one more
  nloc = n / nprocs
  first = rank * nloc + min(rank, mod(n, nprocs))
  if (rank < mod(n, nprocs)) nloc = nloc + 1
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= nprocs) right = MPI_PROC_NULL

  allocate (u(0:nloc + 1), unew(nloc))
  u = 0d0
  do i = 1, nloc
    u(i) = dble(mod((first + i) * 7, 11))     ! a bumpy start
  end do

  do it = 1, iters
    ! ghosts: u(0) comes from the left (tag 1), u(nloc+1) from the right (tag 0)
    call MPI_Irecv(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(u(nloc + 1), 1, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(u(nloc), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, reqs(4), ierr)
    call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)

    res = 0d0
    do i = 1, nloc
      unew(i) = 0.5d0 * u(i) + 0.25d0 * (u(i - 1) + u(i + 1))
      res = res + (unew(i) - u(i))**2
    end do
    u(1:nloc) = unew
    call MPI_Allreduce(res, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do

  res = sum(u(1:nloc))
  call MPI_Allreduce(MPI_IN_PLACE, res, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,f12.6,a,es12.4)') 'halo: ', n, ' cells, ', iters, &
      ' iterations, ', nprocs, ' processes, sum ', res, ', last residual ', total
  end if
  deallocate (u, unew)
  call MPI_Finalize(ierr)
end program halo
