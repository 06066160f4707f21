/* The hosts named on mpirun's command line (--host/-H lists, --hostfile/--machinefile), and
 * which of them are this machine. mpirun itself starts ranks on this machine only; other
 * hosts are srun's business, inside a Slurm allocation (vbt_srun.h). */
#ifndef VBT_HOSTS_H
#define VBT_HOSTS_H

#include "vbt_opts.h"
#include "vbt_status.h"

typedef struct {
    char *name;
    int slots; /* how many ranks the user gave it: ":N", "slots=N", else 1 per mention */
} vbt_host_t;

typedef struct {
    vbt_host_t *hosts; /* each name once, in the order first named */
    int nhosts;
    int slots; /* the sum */
} vbt_hostlist_t;

/* Read opts->hosts and opts->hostfile into *list_p (empty when neither was given). A
 * malformed entry or an unreadable file is told to the user (file and line) and gives
 * VBT_ERR_INVALID_PARAM. */
vbt_status_t vbt_hosts_load(const vbt_opts_t *opts, vbt_hostlist_t *list_p);
void vbt_hosts_cleanup(vbt_hostlist_t *list);

/* Whether name is this machine: localhost, a loopback address, the host name (with or
 * without its domain) or the address of one of its interfaces. */
int vbt_hosts_is_local(const char *name);

/* The first host of the list that is not this machine, or NULL. */
const char *vbt_hosts_first_remote(const vbt_hostlist_t *list);

#endif
