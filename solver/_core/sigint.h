/* Ctrl-C for a search on Python's main thread.
 *
 * Python runs its SIGINT handler on the main thread between bytecodes, so a
 * search there (C, without the GIL) held Ctrl-C back until it ended: minutes
 * for a fresh 36-card Mariasz deal.  While such a search runs, this handler
 * takes SIGINT in Python's place and only raises a flag the search polls with
 * its cancel flag; once the search is over, Python's own handler is put back
 * and the signal handed to it (PyErr_SetInterruptEx), so Python does with it
 * what it would have done, only sooner.  The main thread runs one search at a
 * time, so one flag and one saved handler serve.
 */
#ifndef DD_SIGINT_H
#define DD_SIGINT_H

#include <signal.h>
#include <string.h>

static volatile int dd_sigint_hit = 0;
static struct sigaction dd_sigint_saved;

static void dd_sigint_handler(int signum) {
    (void)signum;
    dd_sigint_hit = 1;
}

/* Take SIGINT over; 0 if the handler could not be changed (then nothing is). */
static int dd_sigint_arm(void) {
    struct sigaction mine;
    memset(&mine, 0, sizeof mine);
    mine.sa_handler = dd_sigint_handler;
    sigemptyset(&mine.sa_mask);
    mine.sa_flags = SA_ONSTACK;
    dd_sigint_hit = 0;
    return sigaction(SIGINT, &mine, &dd_sigint_saved) == 0;
}

/* Put the handler back; whether a SIGINT came meanwhile. */
static int dd_sigint_disarm(void) {
    sigaction(SIGINT, &dd_sigint_saved, NULL);
    return dd_sigint_hit;
}

#endif
