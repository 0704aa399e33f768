/*
 * sigs.c - catching a set of signals (see sigs.h).
 */
#include <string.h>

#include "lib/sigs.h"

void sigs_catch(const int *sigs, int n, void (*handler)(int), int flags, struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < n; i++)
		sigaction(sigs[i], &sa, old ? &old[i] : NULL);
}

void sigs_restore(const int *sigs, int n, const struct sigaction *old)
{
	for (int i = 0; i < n; i++)
		sigaction(sigs[i], &old[i], NULL);
}
