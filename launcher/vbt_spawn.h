/* Starting the ranks: finding the program, building their environment, fork and exec with
 * the rank's stdio pipes, process group and binding. */
#ifndef VBT_SPAWN_H
#define VBT_SPAWN_H

#include <sys/types.h>

#include "vbt_bind.h"
#include "vbt_opts.h"
#include "vbt_status.h"

/* Find the app's executable like execvp would (PATH for a bare name; a relative path is looked
 * up in --wdir first, since the rank runs there, then in mpirun's directory) and store its
 * absolute path in app->path. Tells the user what is wrong and returns VBT_ERR_NOT_FOUND when
 * there is no such program, VBT_ERR_INVALID_PARAM when it is not executable. */
vbt_status_t vbt_spawn_resolve(vbt_app_t *app, const char *wdir);

/* The environment of the ranks: mpirun's own without the PMIx variables of an enclosing job,
 * then the -x/--env/-genv settings in order. NULL when out of memory. */
char **vbt_spawn_env_create(const vbt_opts_t *opts);
/* A deep copy, for one rank (PMIx_server_setup_fork edits it). */
char **vbt_spawn_env_dup(char **env);
void vbt_spawn_env_destroy(char **env);

typedef struct {
    const char *path;
    char **argv;
    char **env;
    const char *wdir; /* NULL: stay in mpirun's directory */
    const vbt_binding_t *binding;
    int stdin_fd; /* becomes the child's stdin */
    int rank;
} vbt_spawn_args_t;

/* Fork and exec one rank in a process group of its own. Returns its pid and the read ends of
 * its stdout and stderr pipes (non-blocking, close-on-exec). */
vbt_status_t vbt_spawn_rank(const vbt_spawn_args_t *args, pid_t *pid_p, int *out_fd_p,
                            int *err_fd_p);

#endif
