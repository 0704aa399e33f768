/*
 * errmsg.c - one-line error messages (see errmsg.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "lib/errmsg.h"

bool errmsg(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	for (unsigned char *p = (unsigned char *)err; len && *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return false;
}
