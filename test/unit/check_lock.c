/* The library's critical section (runtime/base/vbt_lock.h): off, it is no lock at all; on, it
 * excludes other threads (a plain counter incremented under it by several threads ends exact),
 * the owner takes it again without deadlock, a try by another thread fails while it is held,
 * a suspended lock is free for others and comes back at its depth, and threads that queue for
 * it sleep in the kernel (the futex) and are woken by each drop. */
#include "vbt_check.h"
#include "vbt_lock.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#define THREADS 4
#define ROUNDS  200000

typedef struct {
    vbt_rlock_t lock;
    long counter; /* plain: only the lock keeps the increments whole */
    int held;     /* set by holder() once it holds the lock */
    int release;  /* set by the test to let holder() go */
} shared_t;

static void *bump(void *arg)
{
    shared_t *s = arg;

    for (int i = 0; i < ROUNDS; i++) {
        vbt_rlock_acquire(&s->lock);
        vbt_rlock_acquire(&s->lock); /* nested, as a callback into MPI would */
        s->counter++;
        vbt_rlock_release(&s->lock);
        if ((i & 1023) == 0)
            sched_yield(); /* let the holder be preempted inside, so others queue */
        vbt_rlock_release(&s->lock);
    }
    return NULL;
}

static void *try_bump(void *arg)
{
    shared_t *s = arg;

    for (int i = 0; i < ROUNDS;) {
        if (!vbt_rlock_try(&s->lock))
            continue;
        s->counter++;
        vbt_rlock_release(&s->lock);
        i++;
    }
    return NULL;
}

/* Take the lock and hold it until told to let go. */
static void *holder(void *arg)
{
    shared_t *s = arg;

    vbt_rlock_acquire(&s->lock);
    __atomic_store_n(&s->held, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&s->release, __ATOMIC_ACQUIRE))
        sched_yield();
    vbt_rlock_release(&s->lock);
    return NULL;
}

static void wait_held(shared_t *s)
{
    while (!__atomic_load_n(&s->held, __ATOMIC_ACQUIRE))
        sched_yield();
}

START_TEST(test_off_is_no_lock)
{
    shared_t s = {0};

    /* Below MULTIPLE: every call succeeds at once and nothing is recorded. */
    vbt_rlock_acquire(&s.lock);
    vbt_rlock_acquire(&s.lock);
    ck_assert_int_eq(vbt_rlock_try(&s.lock), 1);
    ck_assert_int_eq(vbt_rlock_suspend(&s.lock), 0);
    vbt_rlock_release(&s.lock);
    ck_assert_int_eq(s.lock.depth, 0);
    ck_assert_uint_eq(s.lock.word, 0);
    ck_assert_uint_eq(s.lock.owner, 0);
}
END_TEST

START_TEST(test_excludes)
{
    shared_t s = {0};
    pthread_t t[THREADS];

    vbt_rlock_enable(&s.lock);
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, i % 2 ? try_bump : bump, &s), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(s.counter, (long)THREADS * ROUNDS);
    ck_assert_uint_eq(s.lock.word, 0); /* free, nobody marked asleep */
    vbt_rlock_disable(&s.lock);
}
END_TEST

START_TEST(test_recursive_and_try)
{
    shared_t s = {0};
    pthread_t t;

    vbt_rlock_enable(&s.lock);
    vbt_rlock_acquire(&s.lock);
    vbt_rlock_acquire(&s.lock);
    ck_assert_int_eq(vbt_rlock_try(&s.lock), 1); /* ours: taken again */
    ck_assert_int_eq(s.lock.depth, 3);
    ck_assert(vbt_rlock_mine(&s.lock));
    vbt_rlock_release(&s.lock);
    vbt_rlock_release(&s.lock);
    vbt_rlock_release(&s.lock);
    ck_assert_int_eq(s.lock.depth, 0);
    ck_assert(!vbt_rlock_mine(&s.lock));
    ck_assert_uint_eq(s.lock.word, 0);

    /* Held by another thread: a try fails and changes nothing. */
    ck_assert_int_eq(pthread_create(&t, NULL, holder, &s), 0);
    wait_held(&s);
    ck_assert_int_eq(vbt_rlock_try(&s.lock), 0);
    ck_assert(!vbt_rlock_mine(&s.lock));
    ck_assert_int_eq(vbt_rlock_suspend(&s.lock), 0); /* not ours: nothing to give up */
    __atomic_store_n(&s.release, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    ck_assert_int_eq(vbt_rlock_try(&s.lock), 1);
    vbt_rlock_release(&s.lock);
    vbt_rlock_disable(&s.lock);
}
END_TEST

START_TEST(test_suspend_resume)
{
    shared_t s = {0};
    pthread_t t;
    int depth;

    vbt_rlock_enable(&s.lock);
    vbt_rlock_acquire(&s.lock);
    vbt_rlock_acquire(&s.lock);
    depth = vbt_rlock_suspend(&s.lock);
    ck_assert_int_eq(depth, 2);
    ck_assert(!vbt_rlock_mine(&s.lock));
    /* Given up entirely: another thread takes it while we wait, as a waiting MPI call lets. */
    ck_assert_int_eq(pthread_create(&t, NULL, holder, &s), 0);
    wait_held(&s);
    __atomic_store_n(&s.release, 1, __ATOMIC_RELEASE);
    vbt_rlock_resume(&s.lock, depth); /* sleeps until holder() drops it */
    ck_assert(vbt_rlock_mine(&s.lock));
    ck_assert_int_eq(s.lock.depth, 2);
    pthread_join(t, NULL);
    vbt_rlock_release(&s.lock);
    vbt_rlock_release(&s.lock);
    ck_assert(!vbt_rlock_mine(&s.lock));
    ck_assert_uint_eq(s.lock.word, 0);
    vbt_rlock_disable(&s.lock);
}
END_TEST

/* A thread that queues behind a holder sleeps (the word says so) instead of spinning, and the
 * holder's drop wakes it. */
START_TEST(test_waiter_sleeps)
{
    shared_t s = {0};
    pthread_t h, w;
    clockid_t cpu;
    struct timespec before, after;
    struct timespec pause = {0, 50 * 1000 * 1000};
    long used_ns;

    vbt_rlock_enable(&s.lock);
    ck_assert_int_eq(pthread_create(&h, NULL, holder, &s), 0);
    wait_held(&s);
    ck_assert_int_eq(pthread_create(&w, NULL, bump, &s), 0);
    /* The waiter marks the word contended before it sleeps. */
    while (__atomic_load_n(&s.lock.word, __ATOMIC_ACQUIRE) != 2)
        sched_yield();
    /* Asleep, it uses no CPU time while the holder keeps the lock for 50 ms. */
    ck_assert_int_eq(pthread_getcpuclockid(w, &cpu), 0);
    clock_gettime(cpu, &before);
    nanosleep(&pause, NULL);
    clock_gettime(cpu, &after);
    used_ns = (after.tv_sec - before.tv_sec) * 1000000000L + (after.tv_nsec - before.tv_nsec);
    ck_assert_msg(used_ns < 5 * 1000 * 1000, "the waiter used %ld ns of CPU while queued", used_ns);
    ck_assert_int_eq(s.counter, 0); /* still excluded */
    __atomic_store_n(&s.release, 1, __ATOMIC_RELEASE);
    pthread_join(h, NULL);
    pthread_join(w, NULL);
    ck_assert_int_eq(s.counter, ROUNDS);
    ck_assert_uint_eq(s.lock.word, 0);
    vbt_rlock_disable(&s.lock);
}
END_TEST

static Suite *lock_suite(void)
{
    Suite *s = suite_create("lock");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_off_is_no_lock);
    tcase_add_test(tc, test_excludes);
    tcase_add_test(tc, test_recursive_and_try);
    tcase_add_test(tc, test_suspend_resume);
    tcase_add_test(tc, test_waiter_sleeps);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return vbt_check_run(lock_suite());
}
