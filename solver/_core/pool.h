/* Parked threads for the searches that use several (root_split.pxi, run_on_threads).
 *
 * Starting N - 1 threads for each search on N threads and joining them would
 * make every search of a few milliseconds pay a thread's start and end.  So a
 * thread, once started, parks on its condition variable when its work is done
 * and is handed the next search's work (spinning rather than parking, on either
 * side, measured no faster).  A search takes idle threads (starting new ones
 * only when none is idle, at most DD_POOL_MAX in all), so concurrent searches
 * each get their own.  Measured
 * (benchmarks/RESULTS.md, "Parked threads"): Mariáš Hra deals on two threads 4%
 * faster, Klaverjas layouts 2%.
 *
 * A thread parked for DD_POOL_IDLE_S seconds ends, so that a process keeps
 * no threads long after its last search on several (a fork then finds none).
 * The threads block every signal (Python takes its signals on the main
 * thread; a parked thread must not be the one the kernel picks).  A forked
 * child has none of its parent's threads: the pool starts empty there.
 */
#ifndef DD_POOL_H
#define DD_POOL_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#define DD_POOL_MAX 64
#define DD_POOL_IDLE_S 1

typedef void* (*dd_work_fn)(void*);

typedef struct {
    pthread_mutex_t m;
    pthread_cond_t cv;
    dd_work_fn work;
    void* arg;
    int state;          /* 0 parked, 1 work posted, 2 work done */
    int taken;          /* a search holds it (under dd_pool_lock) */
    int alive;          /* its thread runs (under dd_pool_lock) */
} dd_pool_thread;

static dd_pool_thread dd_pool[DD_POOL_MAX];
static int dd_pool_n = 0;
static pthread_mutex_t dd_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int dd_pool_atfork = 0;

static void dd_pool_forked(void) {
    /* the child has only the thread that forked: no parked threads, a fresh lock */
    pthread_mutex_init(&dd_pool_lock, NULL);
    dd_pool_n = 0;
}

/* Park until work is posted (1), or until the thread has been idle long enough to end (0). */
static int dd_pool_park(dd_pool_thread* t) {
    struct timespec until;
    for (;;) {
        pthread_mutex_lock(&t->m);
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += DD_POOL_IDLE_S;
        while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != 1) {
            if (pthread_cond_timedwait(&t->cv, &t->m, &until) == ETIMEDOUT)
                break;
        }
        if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == 1) {
            pthread_mutex_unlock(&t->m);
            return 1;
        }
        pthread_mutex_unlock(&t->m);
        pthread_mutex_lock(&dd_pool_lock);
        if (!t->taken) {
            t->alive = 0;               /* no search holds it: it ends (its slot is reused) */
            pthread_mutex_unlock(&dd_pool_lock);
            return 0;
        }
        pthread_mutex_unlock(&dd_pool_lock);     /* just taken: its work is on the way */
    }
}

static void* dd_pool_main(void* arg) {
    dd_pool_thread* t = (dd_pool_thread*) arg;
    for (;;) {
        if (!dd_pool_park(t))
            return NULL;
        t->work(t->arg);
        pthread_mutex_lock(&t->m);
        __atomic_store_n(&t->state, 2, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->m);
    }
}

/* An idle pool thread, taken for the caller (started if none is idle); -1 if none can be. */
static int dd_pool_take(void) {
    int i, got = -1, slot = -1;
    pthread_t tid;
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_mutex_lock(&dd_pool_lock);
    if (!dd_pool_atfork) {
        dd_pool_atfork = pthread_atfork(NULL, NULL, dd_pool_forked) == 0;
    }
    for (i = 0; i < dd_pool_n; i++) {
        if (dd_pool[i].alive && !dd_pool[i].taken) {
            got = i;
            break;
        }
        if (!dd_pool[i].alive && slot < 0)
            slot = i;
    }
    if (got < 0 && slot < 0 && dd_pool_n < DD_POOL_MAX)
        slot = dd_pool_n;
    if (got < 0 && slot >= 0 && dd_pool_atfork) {
        dd_pool_thread* t = &dd_pool[slot];
        pthread_mutex_init(&t->m, NULL);
        pthread_cond_init(&t->cv, NULL);
        t->state = 0;
        /* started with every signal blocked, and detached: it parks, then ends when idle */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&tid, &attr, dd_pool_main, t) == 0) {
            t->alive = 1;
            got = slot;
            if (slot == dd_pool_n)
                dd_pool_n++;
        }
        pthread_attr_destroy(&attr);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (got >= 0)
        dd_pool[got].taken = 1;
    pthread_mutex_unlock(&dd_pool_lock);
    return got;
}

static void dd_pool_post(int i, dd_work_fn work, void* arg) {
    dd_pool_thread* t = &dd_pool[i];
    pthread_mutex_lock(&t->m);
    t->work = work;
    t->arg = arg;
    __atomic_store_n(&t->state, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->m);
}

/* Wait for thread i's work, and give the thread back. */
static void dd_pool_wait(int i) {
    dd_pool_thread* t = &dd_pool[i];
    pthread_mutex_lock(&t->m);
    while (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != 2)
        pthread_cond_wait(&t->cv, &t->m);
    __atomic_store_n(&t->state, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&t->m);
    pthread_mutex_lock(&dd_pool_lock);
    t->taken = 0;
    pthread_mutex_unlock(&dd_pool_lock);
}

/* work(args + k * size) for k < nthreads: k = 0 on the calling thread, the others on pool
 * threads (a share no thread can be found for is left to the others, as the work's own
 * hand-out allows); returns once all are done. */
static void dd_pool_run(dd_work_fn work, char* args, size_t size, int nthreads) {
    int taken[DD_POOL_MAX];
    int k, n = 0;
    for (k = 1; k < nthreads && k < DD_POOL_MAX; k++) {
        int i = dd_pool_take();
        if (i < 0)
            break;
        taken[n++] = i;
        dd_pool_post(i, work, args + k * size);
    }
    work(args);
    for (k = 0; k < n; k++)
        dd_pool_wait(taken[k]);
}

#endif
