/* Locks whose use is chosen once, at initialisation: below MPI_THREAD_MULTIPLE a lock is a
 * load of its own `on` flag and a branch predicted not taken, so the single-threaded fast path
 * takes no atomic and no lock. With MPI_THREAD_MULTIPLE it is a recursive lock: the owner is
 * kept beside it, so a thread that holds it (a user callback calling MPI from inside the
 * library, a collective calling point-to-point) takes it again without deadlock, and a wait can
 * give it up entirely and take it back at the same depth.
 *
 * Underneath is a futex word (Drepper, "Futexes Are Tricky", mutex 3: 0 free, 1 held, 2 held
 * and a thread may sleep on it), not a pthread mutex: taking and dropping it are a compare-and-
 * swap and an exchange inline, where pthread_mutex_lock/unlock are calls that dispatch on the
 * mutex's type (about 25 instructions each, and a 1-thread ping-pong at MULTIPLE made eight of
 * them per iteration). A contending thread sleeps in the kernel instead of spinning, so no
 * thread spins on a lock held by a sleeping thread; and the library never sleeps holding it
 * (waits give it up). The owner is the thread pointer, read inline, not pthread_self(). */
#ifndef VBT_LOCK_H
#define VBT_LOCK_H

#include <pthread.h>
#include <stdint.h>

#include "vbt_compiler.h"

typedef struct vbt_rlock {
    int on;          /* set once when MPI_THREAD_MULTIPLE is granted; read unlocked */
    int depth;       /* how many times the owner took it; written by the owner only */
    uintptr_t owner; /* the thread that holds it (vbt_thread_self); read with atomics */
    uint32_t word;   /* the futex word: 0 free, 1 held, 2 held with sleepers possible */
} vbt_rlock_t;

#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define VBT_HAVE_THREAD_POINTER 1
#endif
#endif

/* This thread's identity, unique among live threads: its thread pointer (one register read),
 * or pthread_self() where the compiler cannot read it. */
static inline uintptr_t vbt_thread_self(void)
{
#ifdef VBT_HAVE_THREAD_POINTER
    return (uintptr_t)__builtin_thread_pointer();
#else
    return (uintptr_t)pthread_self();
#endif
}

/* The futex word's slow paths (vbt_lock.c): sleep until it is ours, having found it at c (1 or
 * 2); wake one sleeper after a drop that found sleepers possible. */
void vbt_futex_lock_wait(uint32_t *word, uint32_t c);
void vbt_futex_wake(uint32_t *word);

static inline int vbt_futex_trylock(uint32_t *word)
{
    uint32_t c = 0;

    return __atomic_compare_exchange_n(word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void vbt_futex_lock(uint32_t *word)
{
    uint32_t c = 0;

    if (likely(__atomic_compare_exchange_n(word, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
        return;
    vbt_futex_lock_wait(word, c);
}

static inline void vbt_futex_unlock(uint32_t *word)
{
    if (unlikely(__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2))
        vbt_futex_wake(word);
}

static inline int vbt_rlock_mine(vbt_rlock_t *l)
{
    return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == vbt_thread_self();
}

static inline void vbt_rlock_drop(vbt_rlock_t *l)
{
    if (--l->depth > 0)
        return;
    __atomic_store_n(&l->owner, (uintptr_t)0, __ATOMIC_RELAXED);
    vbt_futex_unlock(&l->word);
}

/* Turn the lock on (MPI_THREAD_MULTIPLE granted). Call before a second thread may use it. */
static inline void vbt_rlock_enable(vbt_rlock_t *l)
{
    if (l->on)
        return;
    l->depth = 0;
    __atomic_store_n(&l->word, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&l->owner, (uintptr_t)0, __ATOMIC_RELAXED);
    __atomic_store_n(&l->on, 1, __ATOMIC_RELEASE);
}

/* Turn it off again (the library is torn down: no other thread may be inside). */
static inline void vbt_rlock_disable(vbt_rlock_t *l)
{
    if (!l->on)
        return;
    /* MPI_Finalize tears the library down from inside its own critical section. */
    if (vbt_rlock_mine(l)) {
        l->depth = 1;
        vbt_rlock_drop(l);
    }
    __atomic_store_n(&l->on, 0, __ATOMIC_RELEASE);
}

/* The futex word was just taken: record this thread as the owner, once. */
static inline void vbt_rlock_own(vbt_rlock_t *l)
{
    __atomic_store_n(&l->owner, vbt_thread_self(), __ATOMIC_RELAXED);
    l->depth = 1;
}

static inline void vbt_rlock_take(vbt_rlock_t *l)
{
    if (vbt_rlock_mine(l)) {
        l->depth++;
        return;
    }
    vbt_futex_lock(&l->word);
    vbt_rlock_own(l);
}

static inline void vbt_rlock_acquire(vbt_rlock_t *l)
{
    if (unlikely(__atomic_load_n(&l->on, __ATOMIC_RELAXED)))
        vbt_rlock_take(l);
}

static inline void vbt_rlock_release(vbt_rlock_t *l)
{
    /* Not ours: it was turned on while we were inside (MPI_Session_init granting MULTIPLE). */
    if (unlikely(__atomic_load_n(&l->on, __ATOMIC_RELAXED)) && vbt_rlock_mine(l))
        vbt_rlock_drop(l);
}

/* Take it unless another thread holds it: 1 when taken (release it then), 0 when not. Progress
 * called by a waiting thread uses it, so a waiter never blocks behind another thread's step:
 * that thread is making progress for everyone. */
static inline int vbt_rlock_try(vbt_rlock_t *l)
{
    if (likely(!__atomic_load_n(&l->on, __ATOMIC_RELAXED)))
        return 1;
    if (vbt_rlock_mine(l)) {
        l->depth++;
        return 1;
    }
    if (!vbt_futex_trylock(&l->word))
        return 0;
    vbt_rlock_own(l);
    return 1;
}

/* Give the lock up entirely if this thread holds it (before a wait spins or sleeps), returning
 * the depth to take it back at with vbt_rlock_resume; 0 when it was not held. */
static inline int vbt_rlock_suspend(vbt_rlock_t *l)
{
    int depth;

    if (likely(!__atomic_load_n(&l->on, __ATOMIC_RELAXED)) || !vbt_rlock_mine(l))
        return 0;
    depth = l->depth;
    l->depth = 1;
    vbt_rlock_drop(l);
    return depth;
}

static inline void vbt_rlock_resume(vbt_rlock_t *l, int depth)
{
    if (depth == 0)
        return;
    vbt_rlock_take(l);
    l->depth = depth;
}

/* Scope guard: `VBT_RLOCK_SCOPE(l);` holds l until the enclosing block is left, by any return
 * (GCC and Clang's cleanup attribute). */
static inline void vbt_rlock_scope_end(vbt_rlock_t **lp)
{
    vbt_rlock_release(*lp);
}
#define VBT_RLOCK_SCOPE(_l)                                                                        \
    vbt_rlock_t *vbt_scope_lock_ __attribute__((cleanup(vbt_rlock_scope_end), unused)) =           \
        (vbt_rlock_acquire(_l), (_l))

/* Reference counts: atomic when the lock is on (objects shared between threads), plain
 * otherwise. Returns the new count. */
static inline int vbt_ref_add(const vbt_rlock_t *l, int *count, int delta)
{
    if (unlikely(__atomic_load_n(&l->on, __ATOMIC_RELAXED)))
        return __atomic_add_fetch(count, delta, __ATOMIC_ACQ_REL);
    return *count += delta;
}

/* Completion flags (a request's complete): set with release after the outcome is written, read
 * with acquire by whichever thread tests or waits, so it sees the outcome too. Plain moves on
 * x86 and cheap elsewhere, so they need no choice at init. */
static inline int vbt_flag_get(const volatile uint8_t *flag)
{
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static inline void vbt_flag_set(volatile uint8_t *flag)
{
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

#endif
