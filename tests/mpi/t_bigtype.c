/* t_bigtype.c: elements larger than INT_MAX bytes. MPI_Type_size says MPI_UNDEFINED for them,
 * so the shim must size them as MPI_Count; COLLINFO's 32-bit type sizes saturate from 4 GiB.
 * The peers are MPI_PROC_NULL and the collectives' counts are 0: none of the 3 or 5 GiB per
 * element is ever touched. The expected events are check_events.py's bigtype(). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MT_CHECK(MPI_Init(&argc, &argv));
    mt_begin();
    MPI_Datatype gib, big, huge;
    MT_CHECK(MPI_Type_contiguous(1 << 30, MPI_BYTE, &gib));
    MT_CHECK(MPI_Type_contiguous(3, gib, &big));
    MT_CHECK(MPI_Type_commit(&big));
    MT_CHECK(MPI_Type_contiguous(5, gib, &huge));
    MT_CHECK(MPI_Type_commit(&huge));
    MPI_Count size = 0;
    MT_CHECK(MPI_Type_size_x(big, &size));
    MT_EXPECT(size == (MPI_Count)3 << 30, "element size %lld", (long long)size);
    char b[1] = {0};
    MPI_Status st;
    MT_CHECK(MPI_Send(b, 1, big, MPI_PROC_NULL, 7, MPI_COMM_WORLD));
    MT_CHECK(MPI_Recv(b, 2, big, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &st));
    MT_EXPECT(st.MPI_SOURCE == MPI_PROC_NULL, "Recv from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
    MT_CHECK(MPI_Bcast(b, 0, big, 0, MPI_COMM_WORLD));
    MT_CHECK(MPI_Send(b, 1, huge, MPI_PROC_NULL, 8, MPI_COMM_WORLD));
    MT_CHECK(MPI_Bcast(b, 0, huge, 0, MPI_COMM_WORLD));
    mt_printf("bigtype: element %lld bytes\n", (long long)size);
    MT_CHECK(MPI_Type_free(&huge));
    MT_CHECK(MPI_Type_free(&big));
    MT_CHECK(MPI_Type_free(&gib));
    return mt_finish();
}
