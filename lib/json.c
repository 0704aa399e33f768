/*
 * json.c - JSON string escaping (see json.h).
 */
#include "lib/json.h"

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_array(FILE *f, const char *name, size_t n, json_item_fn item, const void *ctx)
{
	fprintf(f, ",\"%s\":[", name);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		item(f, i, ctx);
	}
	fputc(']', f);
}

void json_str_or_null(FILE *f, const char *s, bool valid)
{
	if (valid)
		json_str(f, s);
	else
		fputs("null", f);
}
