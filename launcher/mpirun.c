/* mpirun / mpiexec: start an MPI job of Verbatim on this node and see it to its end; inside a
 * Slurm allocation of several nodes, become srun --mpi=pmix instead (vbt_srun.c).
 *
 * Lifecycle: parse the command line, find the programs, plan the bindings (--do-not-launch
 * stops there), start the embedded PMIx server in a private temporary directory, register the
 * job and every rank, fork the ranks, then run one poll loop until every rank has been
 * reaped: PMIx upcalls (through a pipe), signals (through a signalfd, SIGCHLD included), rank
 * output, stdin for rank 0, the --timeout and kill deadlines. Teardown runs on the main
 * thread: PMIx deregistration and finalize, then the temporary directory goes.
 *
 * The job ends at the first failure: a rank that exits non-zero or on a signal, that calls
 * MPI_Abort, or that exits after PMIx_Init but before PMIx_Finalize while others still run
 * (they would otherwise wait in a fence forever). One line on stderr names the rank and the
 * cause; the other ranks get SIGTERM, and SIGKILL 2 seconds later.
 *
 * Which failure is reported: when a rank dies, PMIx at once fails the fence its peers wait in,
 * and a peer may exit with an error code (or call MPI_Abort) and be reaped before the rank
 * that really failed, which can still be on its way out of the kernel. So the first failure
 * opens a settle window (VBT_SETTLE_MS) in which nothing is signalled and further failures are
 * collected; the most telling one is reported: death by a signal, then an exit before
 * PMIx_Finalize (code 0, then non-zero), then MPI_Abort, then a non-zero exit code; the
 * earliest within a kind. A rank that exits mid-exchange makes its peers fail, and the error
 * handler of those calls MPI_Abort: the rank that left is the cause.
 *
 * Exit codes: 0 all ranks exited 0; the failing rank's code; 128+N for signal N; the
 * MPI_Abort code; 1 for an exit before finalize (and launcher errors); 124 timeout (as
 * timeout(1)); 126 program not executable; 127 program not found; 2 usage error; 128+N when
 * mpirun itself was ended by signal N (SIGINT: 130). */
#include "config.h"

#include "vbt_bind.h"
#include "vbt_config.h"
#include "vbt_hosts.h"
#include "vbt_iof.h"
#include "vbt_log.h"
#include "vbt_msg.h"
#include "vbt_opts.h"
#include "vbt_pmix_host.h"
#include "vbt_spawn.h"
#include "vbt_srun.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VBT_EXIT_LAUNCH_ERROR   1
#define VBT_EXIT_NO_FINALIZE    1
#define VBT_EXIT_USAGE          2
#define VBT_EXIT_TIMEOUT        124
#define VBT_EXIT_NOT_EXECUTABLE 126
#define VBT_EXIT_NOT_FOUND      127

/* How long the first failure waits for a likelier root cause (see above). */
#define VBT_SETTLE_MS 250
/* Grace between SIGTERM and SIGKILL. */
#define VBT_KILL_GRACE_MS 2000
/* How long the PMIx teardown may take before mpirun leaves without it. */
#define VBT_TEARDOWN_TIMEOUT_S 15
/* After SIGKILL, how long to wait for the kernel to report the deaths before giving up, so a
 * rank stuck in the kernel cannot make mpirun hang. */
#define VBT_REAP_GIVEUP_MS 10000

/* Kinds of failure, in the order of how much they tell (higher wins the settle window). */
typedef enum {
    VBT_FAIL_NONE = 0,
    VBT_FAIL_EXIT_CODE,   /* exited non-zero */
    VBT_FAIL_ABORT,       /* called MPI_Abort */
    VBT_FAIL_EXIT_EARLY,  /* exited non-zero after PMIx_Init, before PMIx_Finalize, no abort */
    VBT_FAIL_NO_FINALIZE, /* exited 0 after PMIx_Init, before PMIx_Finalize, others running */
    VBT_FAIL_SIGNAL,      /* killed by a signal nobody in mpirun sent */
} vbt_fail_kind_t;

typedef struct {
    vbt_fail_kind_t kind;
    int rank;
    pid_t pid;
    int wstatus;   /* EXIT_CODE, SIGNAL */
    int code;      /* ABORT */
    char msg[512]; /* ABORT */
} vbt_failure_t;

typedef struct {
    pid_t pid; /* 0: never started */
    int exited;
    int group_alive; /* its process group may still have members */
    int connected;   /* called PMIx_Init */
    int finalized;   /* called PMIx_Finalize */
    int aborted;     /* called PMIx_Abort */
    vbt_iof_source_t out, err;
} vbt_rank_t;

typedef struct {
    vbt_opts_t opts;
    vbt_hostlist_t hosts; /* --host/--hostfile: this machine only, unless srun starts the job */
    vbt_rank_t *ranks;
    vbt_binding_t *bindings;
    vbt_iof_t iof;
    int sigfd;
    int devnull;
    char tmpdir[PATH_MAX];
    int nrunning;           /* started and not yet reaped */
    int ending;             /* the job is being terminated: later deaths are not reported */
    int exit_code;          /* what mpirun returns */
    vbt_failure_t failure;  /* the likeliest root cause so far (settle window) */
    long long settle_at;    /* when the settle window closes, 0 when not open */
    long long last_exit_at; /* when the previous rank was reaped */
    int nsignals;           /* SIGINT/SIGTERM/SIGHUP/SIGQUIT received */
    long long timeout_at;   /* ms on CLOCK_MONOTONIC, 0 when none */
    long long kill_at;      /* when SIGKILL follows the SIGTERM, 0 when not armed */
    long long giveup_at;    /* when to stop waiting for killed ranks */
    struct pollfd *pfds;
} vbt_job_t;

/* The exit code for the teardown watchdog. */
static volatile sig_atomic_t vbt_teardown_exit_code = VBT_EXIT_LAUNCH_ERROR;

static void vbt_teardown_watchdog(int sig)
{
    static const char msg[] = "mpirun: the PMIx server did not shut down; exiting without it\n";

    ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);

    (void)sig;
    (void)ignored;
    _exit(vbt_teardown_exit_code);
}

/* PMIx teardown has been seen to hang (a lock never released inside libpmix): the job is
 * over by then, so a hang there must not keep mpirun, and whoever waits for it, forever. */
static void vbt_teardown_arm_watchdog(int exit_code)
{
    struct sigaction sa = {.sa_handler = vbt_teardown_watchdog};

    vbt_teardown_exit_code = exit_code;
    sigaction(SIGALRM, &sa, NULL);
    alarm(VBT_TEARDOWN_TIMEOUT_S);
}

static long long vbt_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Signal every rank's process group; a group whose members are all gone is forgotten. */
static void vbt_job_signal_ranks(vbt_job_t *job, int sig)
{
    for (int r = 0; r < job->opts.nprocs; r++) {
        vbt_rank_t *rank = &job->ranks[r];

        if (!rank->group_alive)
            continue;
        if (kill(-rank->pid, sig) != 0 && errno == ESRCH) {
            rank->group_alive = 0;
            /* Not a group leader yet (setpgid raced)? Reach the process itself. */
            if (!rank->exited)
                (void)kill(rank->pid, sig);
        }
    }
}

/* Start ending the job: the ranks get sig now and SIGKILL after the grace period. */
static void vbt_job_terminate(vbt_job_t *job, int sig)
{
    vbt_iof_stdin_stop(&job->iof);
    vbt_job_signal_ranks(job, sig);
    if (job->kill_at == 0)
        job->kill_at = vbt_now_ms() + VBT_KILL_GRACE_MS;
}

static void vbt_job_kill(vbt_job_t *job)
{
    vbt_job_signal_ranks(job, SIGKILL);
    job->kill_at = 0;
    if (job->giveup_at == 0)
        job->giveup_at = vbt_now_ms() + VBT_REAP_GIVEUP_MS;
}

/* End the job: the first call decides the exit code; the ranks get sig now, SIGKILL later. */
static void vbt_job_end(vbt_job_t *job, int exit_code, int sig)
{
    if (!job->ending) {
        job->ending = 1;
        job->exit_code = exit_code;
    }
    vbt_job_terminate(job, sig);
}

/* End the job with exit_code (launch error, chosen failure): now, no settle window. */
static void vbt_job_fail(vbt_job_t *job, int exit_code)
{
    if (!job->ending)
        vbt_job_end(job, exit_code, SIGTERM);
}

/* A rank failed: keep it if it tells more than what the settle window holds so far. */
static void vbt_job_record_failure(vbt_job_t *job, const vbt_failure_t *failure)
{
    if (job->ending)
        return;
    if (failure->kind > job->failure.kind)
        job->failure = *failure;
    if (job->settle_at == 0)
        job->settle_at = vbt_now_ms() + VBT_SETTLE_MS;
}

/* Close the settle window: report the chosen failure in one line and end the job. */
static void vbt_job_settle(vbt_job_t *job)
{
    const vbt_failure_t *f = &job->failure;
    const char *host = vbt_msg_host();
    const char *note = job->nrunning > 0 ? "; terminating the job" : "";
    int code = 1;

    if (job->settle_at == 0 || job->ending)
        return;
    job->settle_at = 0;
    switch (f->kind) {
    case VBT_FAIL_SIGNAL: {
        int sig = WTERMSIG(f->wstatus);
        vbt_msg_print("rank %d (pid %d on %s) exited on signal %d (%s)%s%s", f->rank, (int)f->pid,
                      host, sig, strsignal(sig), WCOREDUMP(f->wstatus) ? ", core dumped" : "",
                      note);
        code = 128 + sig;
        break;
    }
    case VBT_FAIL_NO_FINALIZE:
        vbt_msg_print("rank %d (pid %d on %s) exited with code 0 without calling MPI_Finalize "
                      "while other ranks were still running%s",
                      f->rank, (int)f->pid, host, note);
        code = VBT_EXIT_NO_FINALIZE;
        break;
    case VBT_FAIL_ABORT:
        vbt_msg_print("rank %d called MPI_Abort with error code %d%s%s%s", f->rank, f->code,
                      f->msg[0] != '\0' ? ": " : "", f->msg, note);
        /* Exit statuses are 8 bits: a code that would wrap to 0 must still read as a
         * failure. MPI_Abort(comm, 0) itself is passed on as 0. */
        code = f->code == 0 ? 0 : (f->code & 0xff) != 0 ? f->code & 0xff : 1;
        break;
    case VBT_FAIL_EXIT_EARLY:
    case VBT_FAIL_EXIT_CODE:
        vbt_msg_print("rank %d (pid %d on %s) exited with code %d%s", f->rank, (int)f->pid, host,
                      WEXITSTATUS(f->wstatus), note);
        code = WEXITSTATUS(f->wstatus);
        break;
    case VBT_FAIL_NONE:
        return;
    }
    vbt_job_fail(job, code);
}

static void vbt_job_on_pmix_event(void *arg, const vbt_pmix_event_t *ev)
{
    vbt_job_t *job = arg;
    vbt_rank_t *rank;

    if (ev->rank < 0 || ev->rank >= job->opts.nprocs)
        return;
    rank = &job->ranks[ev->rank];
    switch (ev->type) {
    case VBT_PMIX_EV_CONNECTED:
        vbt_debug("rank %d connected to PMIx", ev->rank);
        rank->connected = 1;
        /* Connecting again after PMIx_Finalize (a session begun after MPI_Finalize tore the
         * library down): it must finalize again before it exits. */
        rank->finalized = 0;
        break;
    case VBT_PMIX_EV_FINALIZED:
        vbt_debug("rank %d finalized PMIx", ev->rank);
        rank->finalized = 1;
        break;
    case VBT_PMIX_EV_ABORT: {
        vbt_failure_t f = {
            .kind = VBT_FAIL_ABORT, .rank = ev->rank, .pid = rank->pid, .code = ev->status};
        snprintf(f.msg, sizeof(f.msg), "%s", ev->msg);
        vbt_debug("rank %d called PMIx_Abort(%d)", ev->rank, ev->status);
        rank->aborted = 1;
        vbt_job_record_failure(job, &f);
        break;
    }
    }
}

static void vbt_job_rank_exited(vbt_job_t *job, int r, int wstatus)
{
    vbt_rank_t *rank = &job->ranks[r];
    vbt_failure_t f = {.rank = r, .pid = rank->pid, .wstatus = wstatus};

    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) {
        /* Its peers may be waiting for it in a fence that can never complete. Peers may
         * also have been released by PMIx at its departure and been reaped first: a failure
         * being settled, or a rank reaped moments ago, says others were still running when
         * it left. */
        int others = job->nrunning > 0 || job->settle_at != 0 ||
                     (job->last_exit_at != 0 && vbt_now_ms() - job->last_exit_at < VBT_SETTLE_MS);
        if (!rank->connected || rank->finalized || !others)
            return;
        f.kind = VBT_FAIL_NO_FINALIZE;
    } else if (WIFEXITED(wstatus)) {
        /* Its own MPI_Abort was recorded as such; otherwise leaving mid-job is the cause. */
        f.kind = rank->connected && !rank->finalized && !rank->aborted ? VBT_FAIL_EXIT_EARLY
                                                                       : VBT_FAIL_EXIT_CODE;
    } else if (WIFSIGNALED(wstatus)) {
        f.kind = VBT_FAIL_SIGNAL;
    } else {
        return;
    }
    vbt_job_record_failure(job, &f);
}

/* Reap every rank that has exited, first_pid first. */
static void vbt_job_reap(vbt_job_t *job, pid_t first_pid)
{
    for (;;) {
        int wstatus, r;
        pid_t pid = -1;

        /* SIGCHLD does not queue: the signalfd reports the child whose death raised it, the
         * first of those exited since the last read. waitpid(-1) would return the others in
         * fork order instead, and under load a peer that failed because of it can be a
         * zombie too by then. */
        if (first_pid > 0) {
            pid = waitpid(first_pid, &wstatus, WNOHANG);
            first_pid = 0;
        }
        if (pid <= 0)
            pid = waitpid(-1, &wstatus, WNOHANG);
        if (pid <= 0)
            return;
        for (r = 0; r < job->opts.nprocs; r++) {
            if (job->ranks[r].pid == pid && !job->ranks[r].exited)
                break;
        }
        if (r == job->opts.nprocs)
            continue;
        /* A PMIx_Finalize upcall is posted before that client is released, hence before its
         * exit: read the upcalls now, after waitpid, to see it. */
        vbt_pmix_host_progress(vbt_job_on_pmix_event, job);
        job->ranks[r].exited = 1;
        job->nrunning--;
        vbt_iof_source_drain(&job->iof, &job->ranks[r].out);
        vbt_iof_source_drain(&job->iof, &job->ranks[r].err);
        if (r == 0)
            vbt_iof_stdin_stop(&job->iof);
        vbt_debug("rank %d (pid %d) reaped, status 0x%x", r, (int)pid, wstatus);
        vbt_job_rank_exited(job, r, wstatus);
        job->last_exit_at = vbt_now_ms();
    }
}

static void vbt_job_on_signal(vbt_job_t *job, int sig, pid_t from)
{
    const char *abbrev;

    if (sig == SIGCHLD) {
        vbt_job_reap(job, from);
        return;
    }
    if (sig == SIGUSR1 || sig == SIGUSR2) {
        /* As Open MPI does: passed on, the job goes on. */
        vbt_job_signal_ranks(job, sig);
        return;
    }
    abbrev = sigabbrev_np(sig);
    /* A failure already seen is what the user will want to know about. */
    vbt_job_settle(job);
    if (++job->nsignals > 1) {
        vbt_msg_print("caught SIG%s again; killing the ranks", abbrev != NULL ? abbrev : "?");
        vbt_job_kill(job);
        return;
    }
    vbt_msg_print("caught SIG%s; forwarding it to the ranks (once more to kill them at once)",
                  abbrev != NULL ? abbrev : "?");
    vbt_job_end(job, 128 + sig, sig);
}

static void vbt_job_read_signals(vbt_job_t *job)
{
    struct signalfd_siginfo si[16];
    ssize_t n;

    for (;;) {
        n = read(job->sigfd, si, sizeof(si));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        for (size_t i = 0; i < (size_t)n / sizeof(si[0]); i++)
            vbt_job_on_signal(job, (int)si[i].ssi_signo, (pid_t)si[i].ssi_pid);
    }
}

static void vbt_job_check_deadlines(vbt_job_t *job)
{
    long long now = vbt_now_ms();

    if (job->settle_at != 0 && now >= job->settle_at)
        vbt_job_settle(job);
    if (job->timeout_at != 0 && now >= job->timeout_at) {
        job->timeout_at = 0;
        vbt_job_settle(job);
        if (!job->ending) {
            vbt_msg_print("job timed out after %d second%s; terminated", job->opts.timeout,
                          job->opts.timeout == 1 ? "" : "s");
            vbt_job_end(job, VBT_EXIT_TIMEOUT, SIGTERM);
        }
    }
    if (job->kill_at != 0 && now >= job->kill_at) {
        vbt_debug("grace period over: SIGKILL to the ranks");
        vbt_job_kill(job);
    }
}

static int vbt_job_poll_timeout(const vbt_job_t *job)
{
    long long now = vbt_now_ms(), next = 0;
    long long deadlines[] = {job->settle_at, job->timeout_at, job->kill_at, job->giveup_at};

    for (size_t i = 0; i < sizeof(deadlines) / sizeof(deadlines[0]); i++) {
        if (deadlines[i] != 0 && (next == 0 || deadlines[i] < next))
            next = deadlines[i];
    }
    if (next == 0)
        return -1;
    return next <= now ? 0 : (int)(next - now > 60000 ? 60000 : next - now);
}

/* The main loop: until every started rank has been reaped. */
static void vbt_job_run(vbt_job_t *job)
{
    enum { PFD_SIGNAL, PFD_PMIX, PFD_STDIN, PFD_TO_RANK0, PFD_RANKS };

    while (job->nrunning > 0) {
        struct pollfd *pfds = job->pfds;
        int n;

        if (job->giveup_at != 0 && vbt_now_ms() >= job->giveup_at) {
            vbt_msg_print("%d rank%s did not die after SIGKILL; giving up on %s", job->nrunning,
                          job->nrunning == 1 ? "" : "s", job->nrunning == 1 ? "it" : "them");
            return;
        }
        pfds[PFD_SIGNAL] = (struct pollfd){.fd = job->sigfd, .events = POLLIN};
        pfds[PFD_PMIX] = (struct pollfd){.fd = vbt_pmix_host_event_fd(), .events = POLLIN};
        pfds[PFD_STDIN] = (struct pollfd){
            .fd = vbt_iof_stdin_wants_read(&job->iof) ? job->iof.in_fd : -1, .events = POLLIN};
        pfds[PFD_TO_RANK0] = (struct pollfd){
            .fd = vbt_iof_stdin_wants_write(&job->iof) ? job->iof.to_rank0 : -1, .events = POLLOUT};
        for (int r = 0; r < job->opts.nprocs; r++) {
            pfds[PFD_RANKS + 2 * r] = (struct pollfd){.fd = job->ranks[r].out.fd, .events = POLLIN};
            pfds[PFD_RANKS + 2 * r + 1] =
                (struct pollfd){.fd = job->ranks[r].err.fd, .events = POLLIN};
        }

        n = poll(pfds, (nfds_t)(PFD_RANKS + 2 * job->opts.nprocs), vbt_job_poll_timeout(job));
        if (n < 0 && errno != EINTR) {
            vbt_error("poll failed: %m");
            vbt_job_fail(job, VBT_EXIT_LAUNCH_ERROR);
            vbt_job_kill(job);
        }
        /* Upcalls before signals: a finalize must be seen before the exit that follows it. */
        vbt_pmix_host_progress(vbt_job_on_pmix_event, job);
        if (n > 0 && pfds[PFD_SIGNAL].revents != 0)
            vbt_job_read_signals(job);
        if (n > 0 && pfds[PFD_STDIN].revents != 0)
            vbt_iof_stdin_read(&job->iof);
        if (n > 0 && pfds[PFD_TO_RANK0].revents != 0)
            vbt_iof_stdin_write(&job->iof);
        for (int r = 0; n > 0 && r < job->opts.nprocs; r++) {
            if (pfds[PFD_RANKS + 2 * r].revents != 0)
                vbt_iof_source_read(&job->iof, &job->ranks[r].out);
            if (pfds[PFD_RANKS + 2 * r + 1].revents != 0)
                vbt_iof_source_read(&job->iof, &job->ranks[r].err);
        }
        vbt_job_check_deadlines(job);
    }
}

/* Signals become events of the main loop (signalfd). They are blocked before PMIx starts its
 * threads, which inherit the mask, so none of them is delivered to a PMIx thread. */
static vbt_status_t vbt_job_setup_signals(vbt_job_t *job)
{
    int handled[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigset_t set;

    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
        sigaddset(&set, handled[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
        vbt_error("sigprocmask failed: %m");
        return VBT_ERR_IO;
    }
    job->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (job->sigfd < 0) {
        vbt_error("signalfd failed: %m");
        return VBT_ERR_IO;
    }
    /* EPIPE instead of death when a reader goes away; EIO instead of a stop when a
     * background mpirun touches the terminal. */
    sigaction(SIGPIPE, &ign, NULL);
    sigaction(SIGTTIN, &ign, NULL);
    sigaction(SIGTTOU, &ign, NULL);
    return VBT_OK;
}

/* The rendezvous directory for PMIx. Unix socket paths are short (108 bytes), so a long
 * $TMPDIR falls back to /tmp. */
static vbt_status_t vbt_job_create_tmpdir(vbt_job_t *job)
{
    const char *base = getenv("TMPDIR");

    if (base == NULL || *base == '\0' || strlen(base) > 48)
        base = "/tmp";
    snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/vbt-mpirun.XXXXXX", base);
    if (mkdtemp(job->tmpdir) == NULL) {
        vbt_msg_print("cannot create a temporary directory in %s: %s", base, strerror(errno));
        job->tmpdir[0] = '\0';
        return VBT_ERR_IO;
    }
    return VBT_OK;
}

static int vbt_job_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (remove(path) != 0)
        vbt_debug("cannot remove %s: %m", path);
    return 0;
}

static void vbt_job_remove_tmpdir(vbt_job_t *job)
{
    if (job->tmpdir[0] == '\0')
        return;
    /* Depth first, without following links: only what PMIx created in our directory. */
    (void)nftw(job->tmpdir, vbt_job_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    job->tmpdir[0] = '\0';
}

/* Fork every rank; on failure the ones started are terminated by the caller. */
static vbt_status_t vbt_job_spawn(vbt_job_t *job)
{
    vbt_status_t status = VBT_OK;
    char **base_env = vbt_spawn_env_create(&job->opts);
    int rank0_stdin[2] = {-1, -1};

    if (base_env == NULL)
        return VBT_ERR_NO_MEMORY;
    if (pipe2(rank0_stdin, O_CLOEXEC) != 0) {
        vbt_error("pipe2 for rank 0's stdin failed: %m");
        status = VBT_ERR_IO;
        goto out_destroy_env;
    }
    (void)fcntl(rank0_stdin[1], F_SETFL, O_NONBLOCK);
    vbt_iof_stdin_start(&job->iof, rank0_stdin[1]);

    for (int a = 0; a < job->opts.napps && status == VBT_OK; a++) {
        vbt_app_t *app = &job->opts.apps[a];

        for (int i = 0; i < app->nprocs && status == VBT_OK; i++) {
            int r = app->first_rank + i, out_fd, err_fd;
            char **env = vbt_spawn_env_dup(base_env);
            vbt_spawn_args_t args = {
                .path = app->path,
                .argv = app->argv,
                .wdir = job->opts.wdir,
                .binding = &job->bindings[r],
                .stdin_fd = r == 0 ? rank0_stdin[0] : job->devnull,
                .rank = r,
            };

            if (env == NULL) {
                status = VBT_ERR_NO_MEMORY;
                break;
            }
            status = vbt_pmix_host_setup_fork(r, &env);
            args.env = env;
            if (status == VBT_OK)
                status = vbt_spawn_rank(&args, &job->ranks[r].pid, &out_fd, &err_fd);
            vbt_spawn_env_destroy(env);
            if (status != VBT_OK)
                break;
            job->ranks[r].group_alive = 1;
            vbt_iof_source_init(&job->ranks[r].out, out_fd, r, STDOUT_FILENO);
            vbt_iof_source_init(&job->ranks[r].err, err_fd, r, STDERR_FILENO);
            job->nrunning++;
        }
    }
    close(rank0_stdin[0]);

out_destroy_env:
    vbt_spawn_env_destroy(base_env);
    return status;
}

/* A descriptor 0, 1 or 2 that is closed would be reused by the first pipe and then confuse
 * the ranks' stdio: give it /dev/null. */
static void vbt_fix_stdio(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int nfd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (nfd >= 0 && nfd != fd) {
                dup2(nfd, fd);
                close(nfd);
            }
        }
    }
}

/* Without -n, one program runs as many ranks as the hosts have slots (as Open MPI does), or
 * --npernode of them: this machine is the one node. */
static void vbt_job_default_nprocs(vbt_opts_t *opts, const vbt_hostlist_t *hosts)
{
    int n = hosts->slots > 0 ? hosts->slots : opts->npernode;

    if (opts->napps != 1 || opts->apps[0].nprocs_given || n <= 0)
        return;
    opts->apps[0].nprocs = n;
    opts->nprocs = n;
}

static int vbt_exit_code_of(vbt_status_t status)
{
    switch (status) {
    case VBT_ERR_NOT_FOUND:
        return VBT_EXIT_NOT_FOUND;
    case VBT_ERR_INVALID_PARAM:
        return VBT_EXIT_NOT_EXECUTABLE;
    default:
        return VBT_EXIT_LAUNCH_ERROR;
    }
}

int main(int argc, char **argv)
{
    vbt_job_t job = {.sigfd = -1, .devnull = -1};
    vbt_status_t status;
    struct stat st;
    int exit_code = VBT_EXIT_LAUNCH_ERROR;
    int use_srun = 0;

    vbt_fix_stdio();
    vbt_msg_init(argv[0]);
    vbt_log_set_identity("mpirun", -1);
    if (vbt_config_load() != VBT_OK)
        return VBT_EXIT_USAGE; /* the bad VBT_* value has been named */

    if (vbt_opts_parse(argc, argv, &job.opts) != VBT_OK) {
        exit_code = VBT_EXIT_USAGE;
        goto out_cleanup_opts;
    }
    if (job.opts.help || job.opts.version) {
        if (job.opts.help)
            vbt_opts_print_help();
        else
            printf("%s (Verbatim) %s\n", vbt_msg_program(), PACKAGE_VERSION);
        exit_code = 0;
        goto out_cleanup_opts;
    }
    if (job.opts.wdir != NULL) {
        const char *why = stat(job.opts.wdir, &st) != 0 ? strerror(errno)
                          : !S_ISDIR(st.st_mode)        ? "not a directory"
                                                        : NULL;
        if (why != NULL) {
            vbt_msg_print("--wdir %s: %s", job.opts.wdir, why);
            exit_code = VBT_EXIT_USAGE;
            goto out_cleanup_opts;
        }
    }
    if (vbt_hosts_load(&job.opts, &job.hosts) != VBT_OK ||
        vbt_srun_choose(&job.opts, &job.hosts, &use_srun) != VBT_OK) {
        exit_code = VBT_EXIT_USAGE;
        goto out_cleanup_opts;
    }
    for (int a = 0; a < job.opts.napps; a++) {
        status = vbt_spawn_resolve(&job.opts.apps[a], job.opts.wdir);
        if (status != VBT_OK) {
            exit_code = vbt_exit_code_of(status);
            goto out_cleanup_opts;
        }
    }
    if (use_srun) {
        /* Returns only when srun could not be started, or for --do-not-launch. */
        exit_code = vbt_srun_run(&job.opts, &job.hosts);
        goto out_cleanup_opts;
    }
    vbt_job_default_nprocs(&job.opts, &job.hosts);

    job.ranks = calloc((size_t)job.opts.nprocs, sizeof(*job.ranks));
    job.bindings = calloc((size_t)job.opts.nprocs, sizeof(*job.bindings));
    job.pfds = calloc((size_t)job.opts.nprocs * 2 + 4, sizeof(*job.pfds));
    if (job.ranks == NULL || job.bindings == NULL || job.pfds == NULL) {
        vbt_msg_print("out of memory for %d ranks", job.opts.nprocs);
        goto out_free_job;
    }
    for (int r = 0; r < job.opts.nprocs; r++) {
        vbt_iof_source_init(&job.ranks[r].out, -1, r, STDOUT_FILENO);
        vbt_iof_source_init(&job.ranks[r].err, -1, r, STDERR_FILENO);
    }
    status = vbt_bind_plan(&job.opts, job.bindings);
    if (status != VBT_OK) {
        /* Conflicting options (or a topology that is not this machine's) are a usage error;
         * too many ranks is not. */
        exit_code = status == VBT_ERR_INVALID_PARAM ? VBT_EXIT_USAGE : VBT_EXIT_LAUNCH_ERROR;
        goto out_free_job;
    }
    if (job.opts.report_bindings)
        vbt_bind_report(job.bindings, job.opts.nprocs);
    if (job.opts.do_not_launch) {
        /* Open MPI's --do-not-launch: the plan is all that was asked for. */
        exit_code = 0;
        goto out_free_job;
    }

    job.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (job.devnull < 0) {
        vbt_msg_print("cannot open /dev/null: %s", strerror(errno));
        goto out_free_job;
    }
    if (vbt_job_setup_signals(&job) != VBT_OK)
        goto out_close_fds;
    if (vbt_iof_init(&job.iof, job.opts.tag, job.opts.nprocs) != VBT_OK)
        goto out_close_fds;
    if (vbt_job_create_tmpdir(&job) != VBT_OK)
        goto out_cleanup_iof;
    if (vbt_pmix_host_init(job.tmpdir) != VBT_OK)
        goto out_remove_tmpdir;
    if (vbt_pmix_host_register_job(&job.opts) != VBT_OK) {
        vbt_msg_print("cannot register the job with the PMIx server");
        goto out_finalize_pmix;
    }
    vbt_debug("job %s: %d ranks in %d apps, PMIx directory %s", vbt_pmix_host_nspace(),
              job.opts.nprocs, job.opts.napps, job.tmpdir);

    if (job.opts.timeout > 0)
        job.timeout_at = vbt_now_ms() + (long long)job.opts.timeout * 1000;
    if (vbt_job_spawn(&job) != VBT_OK)
        vbt_job_fail(&job, VBT_EXIT_LAUNCH_ERROR);
    vbt_job_run(&job);
    /* The last ranks may have exited inside a settle window. */
    vbt_job_settle(&job);
    exit_code = job.exit_code;

    /* A failed job takes the ranks' children along: whatever is left in their groups. */
    if (job.ending)
        vbt_job_signal_ranks(&job, SIGKILL);
    for (int r = 0; r < job.opts.nprocs; r++) {
        vbt_iof_source_drain(&job.iof, &job.ranks[r].out);
        vbt_iof_source_drain(&job.iof, &job.ranks[r].err);
    }

out_finalize_pmix:
    vbt_teardown_arm_watchdog(exit_code);
    vbt_pmix_host_finalize();
    alarm(0);
out_remove_tmpdir:
    vbt_job_remove_tmpdir(&job);
out_cleanup_iof:
    vbt_iof_cleanup(&job.iof);
out_close_fds:
    if (job.sigfd >= 0)
        close(job.sigfd);
    if (job.devnull >= 0)
        close(job.devnull);
out_free_job:
    free(job.pfds);
    free(job.bindings);
    free(job.ranks);
out_cleanup_opts:
    vbt_hosts_cleanup(&job.hosts);
    vbt_opts_cleanup(&job.opts);
    return exit_code;
}
