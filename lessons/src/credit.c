/*
 * credit.c - check a lesson's credit lines (see credit.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lessons/src/credit.h"
#include "lib/xalloc.h"

/* ---- pointers outside the repository ---------------------------------- */

static bool path_start(const char *s, const char *p)
{
	return p == s || strchr(" \t(\"'`,;", p[-1]);
}

/* "seed 005", "seeds 001-006": the material's numbering, not a source. */
static bool seed_number(const char *p)
{
	if (strncasecmp(p, "seed", 4) != 0)
		return false;
	p += 4;
	if (*p == 's')
		p++;
	while (*p == ' ')
		p++;
	return isdigit((unsigned char)*p);
}

static const char *outside(const char *s)
{
	static const char *const names[] = { "DESIGN.md", "notes/", "reference/" };
	for (const char *p = s; *p; p++) {
		if (strncmp(p, "../", 3) == 0)
			return "a path outside the repository (../)";
		if (path_start(s, p) && (p[0] == '/' || strncmp(p, "~/", 2) == 0))
			return "an absolute path (a file a reader does not have)";
		if (path_start(s, p) && seed_number(p))
			return "a seed number (cite the mail or article itself)";
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(s, names[i]))
			return "internal notes (cite a primary source)";
	return NULL;
}

/* ---- what the credit names -------------------------------------------- */

enum ident_kind { ID_MSGID, ID_COMMIT, ID_URL, ID_FILE_AT, ID_TITLE };

struct ident {
	enum ident_kind kind;
	char text[256];
};

static int take(struct ident *out, int n, enum ident_kind k, const char *p, size_t len)
{
	if (n >= 16 || len == 0)
		return n;
	if (len >= sizeof(out[n].text))
		len = sizeof(out[n].text) - 1;
	out[n].kind = k;
	memcpy(out[n].text, p, len);
	out[n].text[len] = 0;
	return n + 1;
}

static size_t hex_run(const char *p)
{
	size_t i = 0;
	while (isxdigit((unsigned char)p[i]))
		i++;
	return isalnum((unsigned char)p[i]) ? 0 : i;
}

/* "fs/inode.c at v2.6.39": the path before " at v". */
static int file_at(struct ident *out, int n, const char *s, const char *at)
{
	const char *b = at;
	while (b > s && !isspace((unsigned char)b[-1]) && b[-1] != '(')
		b--;
	if (b == at || !memchr(b, '/', (size_t)(at - b)))
		return n;
	const char *e = at + 4; /* " at v" */
	while (*e && (isalnum((unsigned char)*e) || *e == '.' || *e == '-'))
		e++;
	while (e > at + 4 && e[-1] == '.')
		e--;
	return take(out, n, ID_FILE_AT, b, (size_t)(e - b));
}

static int idents(const char *s, struct ident *out)
{
	int n = 0;
	for (const char *p = s; *p; p++) {
		const char *q;
		if (*p == '<' && (q = strchr(p, '>')) && memchr(p, '@', (size_t)(q - p))) {
			n = take(out, n, ID_MSGID, p, (size_t)(q - p + 1));
			p = q;
		} else if (strncmp(p, "http://", 7) == 0 || strncmp(p, "https://", 8) == 0) {
			size_t len = strcspn(p, " \t),;");
			while (len && strchr(".:,", p[len - 1]))
				len--;
			n = take(out, n, ID_URL, p, len);
			p += len - 1;
		} else if (path_start(s, p) && hex_run(p) >= 12) {
			n = take(out, n, ID_COMMIT, p, hex_run(p));
			p += hex_run(p) - 1;
		} else if (strncmp(p, " at v", 5) == 0 && isdigit((unsigned char)p[5])) {
			n = file_at(out, n, s, p);
		} else if (*p == '"' && (q = strchr(p + 1, '"')) && q - p > 3) {
			n = take(out, n, ID_TITLE, p + 1, (size_t)(q - p - 1));
			p = q;
		}
	}
	return n;
}

static char *read_sources(const char *lesson_dir)
{
	static const char *const rel[] = { "%s/../docs/sources.md", "%s/docs/sources.md" };
	for (size_t i = 0; i < 2; i++) {
		char path[1024];
		snprintf(path, sizeof(path), rel[i], lesson_dir);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		char *buf = NULL;
		size_t cap = 0, len = 0, got;
		char chunk[4096];
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
			if (len + got + 1 > cap) {
				cap = 2 * (len + got + 1);
				buf = xrealloc(buf, cap);
			}
			memcpy(buf + len, chunk, got);
			len += got;
			buf[len] = 0;
		}
		fclose(f);
		return buf;
	}
	return NULL;
}

bool credit_ok(const char *credit, const char *lesson_dir, char *why, size_t n)
{
	const char *bad = outside(credit);
	if (bad) {
		snprintf(why, n, "credit: points outside the repository: %s", bad);
		return false;
	}
	struct ident id[16];
	int nid = idents(credit, id);
	if (nid == 0) {
		snprintf(
			why, n,
			"credit: names no source (a Message-ID <...>, a commit id, a URL, FILE at vX.Y, or a \"title\" listed in docs/sources.md)");
		return false;
	}
	char *src = lesson_dir ? read_sources(lesson_dir) : NULL;
	if (!src)
		return true; /* installed lessons: no sources.md beside them */
	bool any = false, ok = true;
	for (int i = 0; i < nid && ok; i++) {
		bool listed = strstr(src, id[i].text) != NULL;
		any |= listed;
		if (!listed && id[i].kind != ID_TITLE) {
			snprintf(why, n, "credit: '%s' is not listed in docs/sources.md",
				 id[i].text);
			ok = false;
		}
	}
	if (ok && !any) {
		snprintf(why, n, "credit: names nothing listed in docs/sources.md");
		ok = false;
	}
	free(src);
	return ok;
}
