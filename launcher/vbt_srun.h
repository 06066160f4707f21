/* Starting a job through Slurm: inside an allocation of several nodes, mpirun becomes
 * `srun --mpi=pmix` with the options that say what mpirun's said (the ranks are PMIx clients
 * of Slurm's own PMIx server then, and mpirun's is not started). */
#ifndef VBT_SRUN_H
#define VBT_SRUN_H

#include "vbt_hosts.h"
#include "vbt_opts.h"
#include "vbt_status.h"

/* Who starts the ranks: *use_srun_p is 1 for srun, 0 for mpirun itself (--launcher, or on
 * auto: srun inside a Slurm allocation of more than one node, or when the hosts or
 * --npernode need other nodes). A job this machine alone cannot run outside an allocation is
 * told in one line and gives VBT_ERR_INVALID_PARAM (a usage error). */
vbt_status_t vbt_srun_choose(const vbt_opts_t *opts, const vbt_hostlist_t *hosts, int *use_srun_p);

/* Exec srun for the job (the programs resolved); with --do-not-launch print the command line
 * on stdout instead. Returns mpirun's exit code: 0 after printing, else on failure (the cause
 * told): 2 for what srun cannot express (MPMD), 127 when srun cannot be executed. */
int vbt_srun_run(const vbt_opts_t *opts, const vbt_hostlist_t *hosts);

#endif
