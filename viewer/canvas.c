/*
 * canvas.c - the off-screen grid (see canvas.h).
 *
 * Text is decoded as UTF-8 by hand so the canvas does not depend on the
 * process locale; every character takes one column (the viewer writes no
 * wide characters).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "viewer/canvas.h"

void canvas_init(struct canvas *c, int w, int h, bool utf8)
{
	c->w = w > 0 ? w : 1;
	c->h = h > 0 ? h : 1;
	c->utf8 = utf8;
	c->cells = xcalloc((size_t)c->w * (size_t)c->h, sizeof(struct cell));
	canvas_clear(c);
}

void canvas_free(struct canvas *c)
{
	free(c->cells);
	c->cells = NULL;
}

void canvas_clear(struct canvas *c)
{
	for (int i = 0; i < c->w * c->h; i++)
		c->cells[i] = (struct cell){ ' ', R_NORMAL };
}

static uint32_t utf8_next(const char **sp)
{
	const unsigned char *s = (const unsigned char *)*sp;
	uint32_t ch = s[0];
	int n = 0;
	if (ch >= 0xf0 && ch < 0xf8) {
		ch &= 0x07;
		n = 3;
	} else if (ch >= 0xe0) {
		ch &= 0x0f;
		n = 2;
	} else if (ch >= 0xc0) {
		ch &= 0x1f;
		n = 1;
	} else if (ch >= 0x80) {
		*sp += 1;
		return '?';
	}
	int i;
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			break;
		ch = ch << 6 | (s[i] & 0x3f);
	}
	*sp += i;
	return i <= n ? '?' : ch;
}

/* Put one decoded character at (col, y), as the canvas can show it. */
static void put_cell(struct canvas *c, int col, int y, int role, uint32_t ch)
{
	if (ch == '\n' || ch == '\t')
		ch = ' ';
	if (ch < 0x20)
		ch = '?';
	if (!c->utf8 && ch > 0x7e)
		ch = '?';
	if (col >= 0 && col < c->w)
		c->cells[y * c->w + col] = (struct cell){ ch, (uint8_t)role };
}

/*
 * Where to cut n characters to fit room columns with an ellipsis: after
 * the last whole word that fits, so a value is never cut in the middle
 * ("HOLD i_lock 42" in 13 columns is "HOLD i_lock …", never "HOLD
 * i_lock 4"); a first word longer than the room is cut (it is a name, and
 * the ellipsis says so).
 */
static int fit_cut(const uint32_t *t, int n, int room)
{
	int cut = room - 1; /* the ellipsis takes the last column */
	if (cut <= 0 || cut >= n)
		return cut < 0 ? 0 : cut;
	if (t[cut] == ' ' || t[cut - 1] == ' ')
		return cut;
	for (int j = cut - 1; j > 0; j--)
		if (t[j] == ' ')
			return j + 1;
	return cut;
}

int canvas_text(struct canvas *c, int x, int y, int maxw, int role, const char *s)
{
	if (y < 0 || y >= c->h || !s)
		return 0;
	int lim = maxw < 0 ? c->w : x + maxw;
	if (lim > c->w)
		lim = c->w;
	if (lim <= x)
		return 0;
	uint32_t t[1024];
	int n = 0, len = 0;
	while (*s && n < (int)(sizeof(t) / sizeof(t[0])))
		t[n++] = utf8_next(&s);
	len = n; /* without trailing blanks: padding is never a cut */
	while (len > 0 && t[len - 1] == ' ')
		len--;
	int room = lim - x;
	if (len <= room) {
		int k = n < room ? n : room;
		for (int i = 0; i < k; i++)
			put_cell(c, x + i, y, role, t[i]);
		return k;
	}
	int cut = fit_cut(t, len, room);
	for (int i = 0; i < cut; i++)
		put_cell(c, x + i, y, role, t[i]);
	put_cell(c, x + cut, y, role, c->utf8 ? 0x2026 : '~');
	return cut + 1;
}

int canvas_printf(struct canvas *c, int x, int y, int maxw, int role, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas_text(c, x, y, maxw, role, buf);
}

void canvas_fill(struct canvas *c, int x, int y, int w, int role, uint32_t ch)
{
	if (y < 0 || y >= c->h)
		return;
	for (int i = x; i < x + w && i < c->w; i++)
		if (i >= 0)
			c->cells[y * c->w + i] = (struct cell){ ch, (uint8_t)role };
}

void canvas_role(struct canvas *c, int x, int y, int w, int role)
{
	if (y < 0 || y >= c->h)
		return;
	for (int i = x; i < x + w && i < c->w; i++)
		if (i >= 0)
			c->cells[y * c->w + i].role = (uint8_t)role;
}

void canvas_box(struct canvas *c, struct rect r, const char *title, bool focused)
{
	if (r.w < 2 || r.h < 2)
		return;
	uint32_t h = c->utf8 ? 0x2500 : '-', v = c->utf8 ? 0x2502 : '|';
	uint32_t tl = c->utf8 ? 0x250c : '+', tr = c->utf8 ? 0x2510 : '+';
	uint32_t bl = c->utf8 ? 0x2514 : '+', br = c->utf8 ? 0x2518 : '+';
	int role = focused ? R_TITLE : R_DIM; /* the title bar says focus */
	canvas_fill(c, r.x, r.y, r.w, role, h);
	canvas_fill(c, r.x, r.y + r.h - 1, r.w, role, h);
	for (int y = r.y + 1; y < r.y + r.h - 1; y++) {
		canvas_fill(c, r.x, y, 1, role, v);
		canvas_fill(c, r.x + r.w - 1, y, 1, role, v);
	}
	canvas_fill(c, r.x, r.y, 1, role, tl);
	canvas_fill(c, r.x + r.w - 1, r.y, 1, role, tr);
	canvas_fill(c, r.x, r.y + r.h - 1, 1, role, bl);
	canvas_fill(c, r.x + r.w - 1, r.y + r.h - 1, 1, role, br);
	if (title) {
		char t[160];
		snprintf(t, sizeof(t), focused ? "[ %s ]" : " %s ", title);
		canvas_text(c, r.x + 2, r.y, r.w - 4, focused ? R_FOCUS : R_TITLE, t);
	}
}

static size_t put_utf8(char *p, uint32_t ch)
{
	if (ch < 0x80) {
		p[0] = (char)ch;
		return 1;
	}
	if (ch < 0x800) {
		p[0] = (char)(0xc0 | ch >> 6);
		p[1] = (char)(0x80 | (ch & 0x3f));
		return 2;
	}
	if (ch < 0x10000) {
		p[0] = (char)(0xe0 | ch >> 12);
		p[1] = (char)(0x80 | (ch >> 6 & 0x3f));
		p[2] = (char)(0x80 | (ch & 0x3f));
		return 3;
	}
	p[0] = (char)(0xf0 | ch >> 18);
	p[1] = (char)(0x80 | (ch >> 12 & 0x3f));
	p[2] = (char)(0x80 | (ch >> 6 & 0x3f));
	p[3] = (char)(0x80 | (ch & 0x3f));
	return 4;
}

int canvas_wrap_cut(const char *s, int len, int room)
{
	if (len <= room)
		return len;
	int cut = room;
	while (cut > 0 && s[cut] != ' ')
		cut--;
	return cut ? cut : room;
}

char *canvas_to_text(const struct canvas *c)
{
	char *out = xmalloc((size_t)c->w * (size_t)c->h * 4 + (size_t)c->h + 1);
	char *p = out;
	for (int y = 0; y < c->h; y++) {
		char *line = p, *last = p;
		for (int x = 0; x < c->w; x++) {
			uint32_t ch = c->cells[y * c->w + x].ch;
			p += put_utf8(p, ch);
			if (ch != ' ')
				last = p;
		}
		p = last > line ? last : line;
		*p++ = '\n';
	}
	*p = 0;
	return out;
}

const char *glyph(const struct canvas *c, enum glyph g)
{
	static const char *const u[] = { "→", "▶", "⧗", "★", "✗", "✓", "●", "·", "⚠" };
	static const char *const a[] = { "->", ">", "W", "*", "X", "v", "H", ".", "!" };
	return c->utf8 ? u[g] : a[g];
}
