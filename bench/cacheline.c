/* bench/cacheline: the floor under every on-node ping-pong. Two threads, pinned to the first two
 * CPUs this process may run on (or to CPU_A and CPU_B), pass a counter back and forth through
 * two cache lines; prints the nanoseconds per round trip (one line's trip each way), the best of
 * a few short trials.
 *
 *   cacheline [CPU_A CPU_B] [ROUND_TRIPS]
 *
 * On a virtual machine the host may move its vCPUs between near and far physical cores while
 * it runs, and every library's small-message figures move with them: bench/shm measures this
 * before and after each run (runs.txt) so that a run taken in a fast phase can be told from a
 * library that is fast. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TRIALS 5

static _Alignas(64) atomic_long ping;
static _Alignas(64) atomic_long pong;
static long round_trips = 20000;
static int cpu_b;

static int pin(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Answers every ping, TRIALS times over. */
static void *answer(void *arg)
{
    long total = round_trips * TRIALS;

    (void)arg;
    if (pin(cpu_b) != 0)
        return (void *)1;
    for (long i = 1; i <= total; i++) {
        while (atomic_load_explicit(&ping, memory_order_acquire) != i)
            ;
        atomic_store_explicit(&pong, i, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int cpu_a = -1, ncpu = 0;
    double best = 0;
    long i = 0;
    cpu_set_t own;
    pthread_t peer;
    void *peer_rc;

    if (argc == 3 || argc == 4) {
        cpu_a = atoi(argv[1]);
        cpu_b = atoi(argv[2]);
    }
    if (argc == 2 || argc == 4)
        round_trips = atol(argv[argc - 1]);
    if (argc > 4 || round_trips < 1) {
        fprintf(stderr, "usage: cacheline [CPU_A CPU_B] [ROUND_TRIPS]\n");
        return 2;
    }
    if (cpu_a < 0) { /* the first two CPUs we may use */
        if (sched_getaffinity(0, sizeof(own), &own) != 0) {
            perror("cacheline: sched_getaffinity");
            return 1;
        }
        for (int c = 0; c < CPU_SETSIZE && ncpu < 2; c++) {
            if (!CPU_ISSET(c, &own))
                continue;
            if (ncpu++ == 0)
                cpu_a = c;
            else
                cpu_b = c;
        }
        if (ncpu < 2) {
            fprintf(stderr, "cacheline: this process may use only one CPU\n");
            return 1;
        }
    }
    /* Both CPUs must take us before the peer starts: a peer that could not pin itself would
     * never answer. */
    if (pin(cpu_b) != 0 || pin(cpu_a) != 0 || pthread_create(&peer, NULL, answer, NULL) != 0) {
        fprintf(stderr, "cacheline: cannot run on CPUs %d and %d\n", cpu_a, cpu_b);
        return 1;
    }
    for (int t = 0; t < TRIALS; t++) {
        double t0 = now_ns(), ns;
        long end = i + round_trips;

        while (i < end) {
            i++;
            atomic_store_explicit(&ping, i, memory_order_release);
            while (atomic_load_explicit(&pong, memory_order_acquire) != i)
                ;
        }
        ns = (now_ns() - t0) / (double)round_trips;
        if (t == 0 || ns < best)
            best = ns;
    }
    if (pthread_join(peer, &peer_rc) != 0 || peer_rc != NULL) {
        fprintf(stderr, "cacheline: the second thread failed on CPU %d\n", cpu_b);
        return 1;
    }
    printf("%.0f\n", best);
    return 0;
}
