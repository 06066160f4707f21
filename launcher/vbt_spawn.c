#include "config.h"

#include "vbt_spawn.h"
#include "vbt_log.h"
#include "vbt_msg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* 0 if path is an executable regular file, else an errno value explaining why not. */
static int spawn_check_exec(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (access(path, X_OK) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    return 0;
}

static char *spawn_join(const char *dir, const char *name)
{
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *out = malloc(len);

    if (out != NULL)
        snprintf(out, len, "%s/%s", dir, name);
    return out;
}

static vbt_status_t spawn_not_runnable(const char *name, int err)
{
    if (err == ENOENT || err == ENOTDIR) {
        vbt_msg_print("cannot run '%s': no such file", name);
        return VBT_ERR_NOT_FOUND;
    }
    if (err == EISDIR)
        vbt_msg_print("cannot run '%s': it is a directory", name);
    else
        vbt_msg_print("cannot run '%s': not executable (%s)", name, strerror(err));
    return VBT_ERR_INVALID_PARAM;
}

vbt_status_t vbt_spawn_resolve(vbt_app_t *app, const char *wdir)
{
    const char *name = app->argv[0];
    char cwd[PATH_MAX];
    char *candidate = NULL;
    int err = ENOENT;

    if (*name == '\0') {
        vbt_msg_print("cannot run '': empty program name");
        return VBT_ERR_NOT_FOUND;
    }
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        vbt_msg_print("cannot find the current directory: %s", strerror(errno));
        return VBT_ERR_IO;
    }

    if (strchr(name, '/') != NULL) {
        if (name[0] == '/') {
            candidate = strdup(name);
            err = candidate != NULL ? spawn_check_exec(candidate) : ENOMEM;
        } else {
            /* The rank runs in --wdir, so "./prog" there is what execvp in the rank would
             * find; mpirun's own directory is the fallback. */
            if (wdir != NULL) {
                char *dir = wdir[0] == '/' ? strdup(wdir) : spawn_join(cwd, wdir);
                candidate = dir != NULL ? spawn_join(dir, name) : NULL;
                free(dir);
                err = candidate != NULL ? spawn_check_exec(candidate) : ENOMEM;
                if (err == ENOENT) {
                    free(candidate);
                    candidate = NULL;
                }
            }
            if (candidate == NULL) {
                candidate = spawn_join(cwd, name);
                err = candidate != NULL ? spawn_check_exec(candidate) : ENOMEM;
            }
        }
        if (err != 0) {
            free(candidate);
            return spawn_not_runnable(name, err);
        }
        app->path = candidate;
        return VBT_OK;
    }

    /* A bare name: search PATH as execvp does, remembering a match that is not executable
     * so the message can say so instead of "not found". */
    {
        const char *path_env = getenv("PATH");
        char *paths, *save = NULL, *dir;
        int denied = 0;

        if (path_env == NULL || *path_env == '\0')
            path_env = "/usr/local/bin:/usr/bin:/bin";
        paths = strdup(path_env);
        if (paths == NULL)
            return VBT_ERR_NO_MEMORY;
        for (dir = strtok_r(paths, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
            char *base = *dir == '\0' || dir[0] != '/' ? spawn_join(cwd, dir) : strdup(dir);
            int e;

            candidate = base != NULL ? spawn_join(base, name) : NULL;
            free(base);
            if (candidate == NULL)
                break;
            e = spawn_check_exec(candidate);
            if (e == 0) {
                free(paths);
                app->path = candidate;
                return VBT_OK;
            }
            if (e != ENOENT && e != ENOTDIR)
                denied = e;
            free(candidate);
            candidate = NULL;
        }
        free(paths);
        if (denied != 0)
            return spawn_not_runnable(name, denied);
        vbt_msg_print("cannot run '%s': command not found in PATH", name);
        return VBT_ERR_NOT_FOUND;
    }
}

/* Variables set by an enclosing PMIx job (mpirun under Slurm or another mpirun) would point
 * the ranks at the wrong server. PMIX_MCA_* are the user's tuning and stay. */
static int spawn_env_is_stale(const char *entry)
{
    return strncmp(entry, "PMIX_", 5) == 0 && strncmp(entry, "PMIX_MCA_", 9) != 0;
}

static int spawn_env_set(char ***env_p, size_t *count_p, const char *entry)
{
    size_t name_len = strcspn(entry, "=");
    char **env = *env_p;
    char *copy = strdup(entry);

    if (copy == NULL)
        return -1;
    for (size_t i = 0; i < *count_p; i++) {
        if (strncmp(env[i], entry, name_len) == 0 && env[i][name_len] == '=') {
            free(env[i]);
            env[i] = copy;
            return 0;
        }
    }
    env = realloc(env, sizeof(char *) * (*count_p + 2));
    if (env == NULL) {
        free(copy);
        return -1;
    }
    env[(*count_p)++] = copy;
    env[*count_p] = NULL;
    *env_p = env;
    return 0;
}

char **vbt_spawn_env_create(const vbt_opts_t *opts)
{
    char **env = calloc(1, sizeof(char *));
    size_t count = 0;

    if (env == NULL)
        return NULL;
    for (char **e = environ; *e != NULL; e++) {
        if (spawn_env_is_stale(*e) || strchr(*e, '=') == NULL)
            continue;
        if (spawn_env_set(&env, &count, *e) != 0)
            goto err_destroy_env;
    }
    for (int i = 0; i < opts->nenv; i++) {
        if (spawn_env_set(&env, &count, opts->env[i]) != 0)
            goto err_destroy_env;
    }
    return env;

err_destroy_env:
    vbt_spawn_env_destroy(env);
    return NULL;
}

char **vbt_spawn_env_dup(char **env)
{
    size_t n = 0;
    char **copy;

    while (env[n] != NULL)
        n++;
    copy = calloc(n + 1, sizeof(char *));
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        copy[i] = strdup(env[i]);
        if (copy[i] == NULL) {
            vbt_spawn_env_destroy(copy);
            return NULL;
        }
    }
    return copy;
}

void vbt_spawn_env_destroy(char **env)
{
    if (env == NULL)
        return;
    for (size_t i = 0; env[i] != NULL; i++)
        free(env[i]);
    free(env);
}

/* Between fork and exec only async-signal-safe calls: mpirun has PMIx threads, and a lock
 * one of them held at fork time stays locked forever in the child. */
static void spawn_child_write(const char *a, const char *b, const char *c)
{
    const char *parts[] = {a, b, c, "\n"};

    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (parts[i] != NULL && write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0)
            return;
    }
}

static void __attribute__((noreturn))
spawn_child(const vbt_spawn_args_t *args, pid_t parent, int out_fd, int err_fd)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t none;

    /* Its own process group: signalling the group reaches whatever the rank started. */
    (void)setpgid(0, 0);
    /* Should mpirun die without ending the job (SIGKILL, a crash), the rank goes too rather
     * than run on without its PMIx server. Checked after, in case mpirun is already gone. */
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(126);
    /* mpirun ignores these and blocks the ones it reads through signalfd; ignored and
     * blocked signals survive exec, so give the program the defaults back. */
    sigaction(SIGPIPE, &dfl, NULL);
    sigaction(SIGTTIN, &dfl, NULL);
    sigaction(SIGTTOU, &dfl, NULL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (dup2(args->stdin_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(err_fd, STDERR_FILENO) < 0)
        _exit(126);
    /* Everything else mpirun holds (other ranks' pipes, PMIx sockets) stays out. */
    close_range(3, ~0U, 0);

    if (args->wdir != NULL && chdir(args->wdir) != 0) {
        spawn_child_write(vbt_msg_program(), ": cannot change to --wdir ", args->wdir);
        _exit(126);
    }
    if (vbt_bind_apply(args->binding) != 0)
        spawn_child_write(vbt_msg_program(), ": warning: cannot bind to cpus ",
                          args->binding->cpus_text);
    execve(args->path, args->argv, args->env);
    {
        int err = errno;
        spawn_child_write(vbt_msg_program(), ": cannot execute ", args->path);
        spawn_child_write("  ", strerror(err), NULL);
        _exit(err == ENOENT ? 127 : 126);
    }
}

vbt_status_t vbt_spawn_rank(const vbt_spawn_args_t *args, pid_t *pid_p, int *out_fd_p,
                            int *err_fd_p)
{
    int out[2], err[2];
    pid_t pid, parent = getpid();

    if (pipe2(out, O_CLOEXEC) != 0) {
        vbt_error("pipe2 for rank %d's stdout failed: %m", args->rank);
        return VBT_ERR_IO;
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        vbt_error("pipe2 for rank %d's stderr failed: %m", args->rank);
        goto err_close_out;
    }
    pid = fork();
    if (pid < 0) {
        vbt_msg_print("cannot start rank %d: fork failed: %s", args->rank, strerror(errno));
        goto err_close_err;
    }
    if (pid == 0)
        spawn_child(args, parent, out[1], err[1]);

    /* Also from the parent, so the group exists before anyone may signal it. EACCES means
     * the child already exec'd after doing it itself. */
    if (setpgid(pid, pid) != 0 && errno != EACCES)
        vbt_debug("setpgid(%d) failed: %m", (int)pid);
    close(out[1]);
    close(err[1]);
    (void)fcntl(out[0], F_SETFL, O_NONBLOCK);
    (void)fcntl(err[0], F_SETFL, O_NONBLOCK);
    *pid_p = pid;
    *out_fd_p = out[0];
    *err_fd_p = err[0];
    vbt_debug("rank %d started: pid %d, %s", args->rank, (int)pid, args->path);
    return VBT_OK;

err_close_err:
    close(err[0]);
    close(err[1]);
err_close_out:
    close(out[0]);
    close(out[1]);
    return VBT_ERR_IO;
}
