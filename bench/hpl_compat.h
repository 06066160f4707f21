/* bench/hpl_compat.h: included before each of HPL 2.0's sources by bench/hpl. HPL 2.0 calls
 * MPI_Address and MPI_Type_struct, removed in MPI-3.0 (Open MPI's mpi.h turns them into compile
 * errors; Verbatim's has none); HPL 2.3 calls their MPI-2 names, as this does. */
#include <mpi.h>
#undef MPI_Address
#undef MPI_Type_struct
#define MPI_Address     MPI_Get_address
#define MPI_Type_struct MPI_Type_create_struct
