/* Ctrl-C for a search on Python's main thread.
 *
 * Python runs its SIGINT handler on the main thread between bytecodes, so a
 * search there (C, without the GIL) would hold Ctrl-C back until it ended:
 * minutes for a fresh 36-card Mariasz deal.  While such a search runs, this handler
 * takes SIGINT in place of the one there was (Python's) and only raises a
 * flag the search polls with its cancel flag; once the search is over, the
 * handler there was is put back and the signal handed to it (raised again), so
 * it does with it what it would have done, only sooner; a handler that does not
 * raise lets the search go on (Searcher._going_on).  The main thread runs
 * one search at a time, so one flag and one saved handler serve; a search
 * begun within one (by Python code run while that one is set up) leaves
 * SIGINT to the outer one.
 */
#ifndef DD_SIGINT_H
#define DD_SIGINT_H

#include <pthread.h>
#include <signal.h>
#include <string.h>

static volatile int dd_sigint_hit = 0;
static struct sigaction dd_sigint_saved;
static int dd_sigint_atfork = 0;

static void dd_sigint_handler(int signum) {
    (void)signum;
    dd_sigint_hit = 1;
}

static int dd_sigint_is_ours(const struct sigaction* action) {
    return !(action->sa_flags & SA_SIGINFO) && action->sa_handler == dd_sigint_handler;
}

/* A child forked (by another thread) while a search had SIGINT: that search is
 * not in the child, so the handler there was goes back at once (else Ctrl-C
 * would only raise the flag there, for good). */
static void dd_sigint_after_fork(void) {
    struct sigaction now;
    if (sigaction(SIGINT, NULL, &now) == 0 && dd_sigint_is_ours(&now))
        sigaction(SIGINT, &dd_sigint_saved, NULL);
    dd_sigint_hit = 0;
}

/* Take SIGINT over; 0 if it is not taken (then nothing is changed): the
 * handler cannot be read or changed, or is already this one (a search within
 * a search).  The handler there was is read before this one is put in its
 * place, so a child forked meanwhile finds it saved; its SA_RESTART is kept. */
static int dd_sigint_arm(void) {
    struct sigaction before, mine;
    if (!dd_sigint_atfork) {
        if (pthread_atfork(NULL, NULL, dd_sigint_after_fork) != 0)
            return 0;
        dd_sigint_atfork = 1;
    }
    if (sigaction(SIGINT, NULL, &before) != 0 || dd_sigint_is_ours(&before))
        return 0;
    dd_sigint_saved = before;
    memset(&mine, 0, sizeof mine);
    mine.sa_handler = dd_sigint_handler;
    sigemptyset(&mine.sa_mask);
    mine.sa_flags = SA_ONSTACK | (before.sa_flags & SA_RESTART);
    dd_sigint_hit = 0;
    return sigaction(SIGINT, &mine, NULL) == 0;
}

/* Put the handler back; whether a SIGINT came meanwhile. */
static int dd_sigint_disarm(void) {
    sigaction(SIGINT, &dd_sigint_saved, NULL);
    return dd_sigint_hit;
}

/* The SIGINT the search took, raised again for the handler put back (Python's
 * own, or whatever the program put in its place: faulthandler.register, a C
 * library's); 0 where this thread blocks SIGINT (another took it), and then
 * nothing is raised. */
static int dd_sigint_pass_on(void) {
    sigset_t blocked;
    if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0 || sigismember(&blocked, SIGINT))
        return 0;
    return raise(SIGINT) == 0;
}

#endif
