/* bench/hpl_main.c: the main program of HPL as HPC Challenge ships it (Debian's hpcc source
 * package, HPL 2.0 in hpcc-1.5.0/hpl/), where HPL is a function, HPL_main, that hpcc calls
 * between its other benchmarks. bench/hpl builds it with HPL's sources and each MPI's mpicc:
 * the same xhpl as HPL's own driver, reading its parameters from hpccinf.txt (HPL.dat's
 * format) in the current directory and writing its report to hpccoutf.txt there. */
#include "hpl.h"

/* HPL's driver (testing/ptest/HPL_pddriver.c); hpcc declares it in its own header. */
int HPL_main(int argc, char **argv, HPL_RuntimeData *rdata, int *failure);

int main(int argc, char **argv)
{
    HPL_RuntimeData rdata;
    int failure = 0;

    MPI_Init(&argc, &argv);
    HPL_main(argc, argv, &rdata, &failure);
    MPI_Finalize();
    return failure != 0;
}

/* hpcc's fallback when hpccinf.txt cannot be read (its defaults for all its benchmarks): here,
 * an error instead. */
int HPCC_Defaults(HPL_T_test *test, int *ns, int *n, int *nbs, int *nb, HPL_T_ORDER *pmapping,
                  int *npqs, int *p, int *q, int *npfs, HPL_T_FACT *pf, int *nbms, int *nbm,
                  int *ndvs, int *ndv, int *nrfs, HPL_T_FACT *rf, int *ntps, HPL_T_TOP *tp,
                  int *ndhs, int *dh, HPL_T_SWAP *fswap, int *tswap, int *l1notran, int *unotran,
                  int *equil, int *align, MPI_Comm comm)
{
    int rank;

    (void)test, (void)ns, (void)n, (void)nbs, (void)nb, (void)pmapping, (void)npqs, (void)p;
    (void)q, (void)npfs, (void)pf, (void)nbms, (void)nbm, (void)ndvs, (void)ndv, (void)nrfs;
    (void)rf, (void)ntps, (void)tp, (void)ndhs, (void)dh, (void)fswap, (void)tswap;
    (void)l1notran, (void)unotran, (void)equil, (void)align;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        fprintf(stderr, "xhpl: cannot read hpccinf.txt (HPL.dat's format) in the current "
                        "directory: bench/hpl copies its test set there\n");
    MPI_Abort(comm, 1);
    return 1;
}
