/* MPI_INFO_ENV and MPI_Info_create_env: what this process was started with (MPI-4.1 Sec.
 * 11.2.3). Keys this process cannot know (soft, file) are left out, as the standard allows. */
#include "vbt_info.h"
#include "vbt_runtime.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    default:
        return "MPI_THREAD_MULTIPLE";
    }
}

/* Set key to value unless value does not fit an info value: a cut command line would tell a
 * wrong story, so the key is left out instead. */
static vbt_status_t set_if_fits(vbt_info_t *info, const char *key, const char *value)
{
    if (strlen(value) > MPI_MAX_INFO_VAL - 1)
        return VBT_OK;
    return vbt_info_set(info, key, value);
}

/* command = argv[0]; argv = the other arguments joined by single spaces (the form of the key of
 * MPI_Comm_spawn's info). */
static vbt_status_t set_command(vbt_info_t *info, int argc, char **argv)
{
    char joined[MPI_MAX_INFO_VAL];
    size_t len = 0;
    vbt_status_t status;

    if (argc < 1 || argv[0] == NULL)
        return VBT_OK;
    status = set_if_fits(info, "command", argv[0]);
    if (status != VBT_OK || argc < 2)
        return status;
    joined[0] = '\0';
    for (int i = 1; i < argc && argv[i] != NULL; i++) {
        size_t n = strlen(argv[i]) + (i > 1);
        if (len + n > sizeof(joined) - 1)
            return VBT_OK; /* too long for a value: left out */
        len +=
            (size_t)snprintf(joined + len, sizeof(joined) - len, "%s%s", i > 1 ? " " : "", argv[i]);
    }
    return vbt_info_set(info, "argv", joined);
}

/* The command line from /proc/self/cmdline (NUL-separated), for MPI_Init(NULL, NULL). */
static vbt_status_t set_command_from_proc(vbt_info_t *info)
{
    char buf[8192], *args[256];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    int argc = 0;

    if (fd < 0)
        return VBT_OK; /* no /proc: the keys are left out */
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return VBT_OK;
    buf[n] = '\0';
    for (char *p = buf; p < buf + n && argc < 256; p += strlen(p) + 1)
        args[argc++] = p;
    return set_command(info, argc, args);
}

vbt_status_t vbt_info_env_fill(vbt_info_t *info, int argc, char **argv)
{
    char buf[PATH_MAX > MPI_MAX_INFO_VAL ? PATH_MAX : MPI_MAX_INFO_VAL];
    struct utsname u;
    vbt_status_t status;

    status = argv != NULL ? set_command(info, argc, argv) : set_command_from_proc(info);
    if (status == VBT_OK && vbt_rt.state == VBT_RT_INITIALIZED) {
        snprintf(buf, sizeof(buf), "%d", vbt_rt.proc.size);
        status = vbt_info_set(info, "maxprocs", buf);
    }
    if (status == VBT_OK && gethostname(buf, sizeof(buf)) == 0) {
        buf[sizeof(buf) - 1] = '\0';
        status = set_if_fits(info, "host", buf);
    }
    if (status == VBT_OK && uname(&u) == 0)
        status = set_if_fits(info, "arch", u.machine);
    if (status == VBT_OK && getcwd(buf, sizeof(buf)) != NULL)
        status = set_if_fits(info, "wdir", buf);
    if (status == VBT_OK && vbt_rt.state == VBT_RT_INITIALIZED)
        status = vbt_info_set(info, "thread_level", thread_level_name(vbt_rt.thread_level));
    return status;
}

vbt_status_t vbt_info_env_init(int argc, char **argv)
{
    vbt_status_t status = vbt_info_env_fill(&vbt_info_env, argc, argv);

    if (status != VBT_OK)
        vbt_info_clear(&vbt_info_env);
    return status;
}

void vbt_info_env_cleanup(void)
{
    vbt_info_clear(&vbt_info_env);
}
