/*
 * sigs.h - one handler for a set of signals, and putting back what was
 * there before.
 *
 * `icache-sim record` catches SIGINT and SIGTERM to end its run cleanly;
 * the viewer's decoder catches the signals a crashing libbabeltrace2
 * raises while it runs one call, and restores them after.
 */
#ifndef LIB_SIGS_H
#define LIB_SIGS_H

#include <signal.h>

/* handler for each of sigs[0..n), with an empty mask and these sa_flags;
 * each signal's previous action into old[i] when old is not NULL. */
void sigs_catch(const int *sigs, int n, void (*handler)(int), int flags, struct sigaction *old);
/* The actions sigs_catch() saved in old, back in place. */
void sigs_restore(const int *sigs, int n, const struct sigaction *old);

#endif /* LIB_SIGS_H */
