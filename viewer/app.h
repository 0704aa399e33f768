/*
 * app.h - the viewer's state and its two tables: panes and keys.
 *
 * Shaped after tig and htop: each pane is a struct of operations (its
 * name and a draw function that renders from the model into a canvas
 * rectangle), and one key table maps keys to actions.  The help screen is
 * generated from the key table, so it cannot disagree with what the keys
 * do.  Nothing on screen is cached between frames: every frame is drawn
 * from the model at the cursor, so a resize is just the next frame.
 */
#ifndef VIEWER_APP_H
#define VIEWER_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "viewer/canvas.h"
#include "viewer/evtext.h"
#include "viewer/index.h"
#include "viewer/model.h"
#include "viewer/timeline.h"

enum term_kind { Q_TYPE, Q_CLASS, Q_CPU, Q_SITE, Q_FLAG, Q_ID, Q_TEXT };

struct query_term {
	enum term_kind kind;
	int value;
	int64_t id; /* Q_ID: id in the index (-1: matches nothing) */
	char text[64];
};

struct query {
	char src[128];
	int n, cap;
	struct query_term *t; /* grown as terms come (query_free) */
};

/* How many of the locks a CPU held at an entry of an inode's life are kept. */
#define HIST_HELD 3

struct inode_hist {
	uint32_t obj;  /* which inode it is for (UINT32_MAX: none) */
	uint64_t upto; /* built from events [0, upto) */
	uint64_t *ev;  /* event numbers of the entries */
	uint8_t *kind; /* see pane_inode.c */
	/* the lock classes its CPU held then, innermost last (255: none);
	 * nheld counts them all */
	uint8_t (*held)[HIST_HELD];
	uint8_t *nheld;
	uint32_t n, cap;
};

struct app;

/* The panes, by what they show (never by their title). */
enum view_pane {
	VIEW_LANES,
	VIEW_LOCKS,
	VIEW_INODE,
	VIEW_ORDER,
	VIEW_STATS,
	VIEW_TIMELINE,
	VIEW_HOT,
	VIEW_SOURCE
};

/* Where a pane goes: the main column, the side column (stacked), the
 * strip (a full-width band above the bottom one, side by side), the
 * bottom band (side by side); see pane_layout(). */
enum pane_slot { SLOT_MAIN, SLOT_SIDE, SLOT_STRIP, SLOT_BOTTOM };

struct pane {
	enum view_pane id;
	const char *title;
	void (*draw)(struct app *a, struct canvas *c, struct rect r);
	enum pane_slot slot;
};

enum prompt_kind { P_NONE, P_SEARCH, P_FILTER, P_GOTO, P_MARK_SET, P_MARK_JUMP, P_LANES };

struct time_buckets; /* pane_timeline.c */

struct app {
	struct trace_index *ix;
	struct model *m; /* state after event `cur` */
	uint64_t cur;
	uint64_t end; /* events [0, end) are visible (app_set_visible) */
	int focus;    /* index in panes[] */
	bool zoom;    /* the focused pane fills the screen */
	bool help;
	int help_page;    /* 0.. the key pages, then the legend */
	int scr_w, scr_h; /* the screen, as the last frame (or --screen) has it */
	bool scr_utf8;
	bool details; /* Enter: the whole event under the cursor */
	int dscroll;  /* its scroll offset, in lines */
	bool reasons; /* the INCOMPLETE reasons overlay */
	bool quit;
	int *scroll; /* per-pane scroll offsets, npanes of them */
	struct query search, filter;
	bool has_search, has_filter;
	enum prompt_kind prompt;
	char input[128];
	int ninput;
	char message[200]; /* one-shot message on the status line */
	uint64_t marks[26];
	bool mark_set[26];
	int last_mark;      /* the mark set or jumped to last, -1 none: the status
			* line measures from it to the cursor */
	int compact;        /* lanes: 0 auto, 1 compact (a narrow column per CPU), 2 text */
	bool compact_shown; /* what the last frame drew */
	/* Lanes picked with p (bit per lane; none: follow the cursor). */
	uint64_t lane_pick[4];
	bool lanes_picked;
	struct time_buckets *tb; /* the timeline strip's figures, built once */
	bool strip_wait;         /* the strip shows the time waited (T) */
	bool has_nocpu;          /* a lane for events without a CPU */
	uint32_t pinned;         /* inode picked with i (UINT32_MAX none) */
	bool source;             /* the source pane in place of the inode pane (s) */
	struct inode_hist hist;
	/* A scan under way: a search (n, N, /), a new filter looking for its
	 * first event (f), or a step through a filter (j, k, PgDn...).  With
	 * `sliced` (the terminal viewer) it advances a slice per app_work()
	 * call, so that Esc stops it and the screen shows how far it got;
	 * without, it runs to its end. */
	bool sliced;
	uint32_t slice; /* events a slice looks at (0: the default) */
	struct app_job {
		bool on;
		enum job_kind { JOB_SEARCH, JOB_FILTER, JOB_STEP } kind;
		int dir;       /* +1 forward, -1 backward */
		int left;      /* JOB_STEP: events still to step over */
		bool turned;   /* JOB_FILTER: none below, now looking above */
		int64_t at;    /* last event looked at */
		uint64_t from; /* where it started */
	} job;
};

/* The registry (viewer/panes.c), in focus (Tab) order. */
extern const struct pane *const panes[];
extern const int npanes;
int pane_index(enum view_pane id); /* -1 if there is none */
const struct pane *pane_by_id(enum view_pane id);
/* Rectangles r[0..npanes) for a body w x h at (0, top); zoomed >= 0:
 * that pane alone fills it. */
void pane_layout(struct rect *r, int zoomed, int w, int top, int h);
/* A small screen: pane upper over the full width, pane lower below it. */
void pane_layout_pair(struct rect *r, int upper, int lower, int w, int top, int h);
/* The same with pane `hidden` (an index, -1 none) given no room. */
void pane_layout_without(struct rect *r, int zoomed, int w, int top, int h, int hidden);
/* The scroll offset of one pane. */
static inline int *pane_scroll(struct app *a, enum view_pane id)
{
	static int none;
	int i = pane_index(id);
	return i >= 0 ? &a->scroll[i] : &none;
}

struct keydef {
	int keys[4];       /* ncurses key codes, 0-terminated */
	const char *label; /* for the help screen */
	const char *help;
	void (*fn)(struct app *a);
};

extern const struct keydef keytab[];
extern const int nkeys;

void app_init(struct app *a, struct trace_index *ix);
void app_free(struct app *a);
void app_key(struct app *a, int key);
/* Advance a search under way (a->job) by one slice; true if it is still
 * under way after. */
bool app_work(struct app *a);
void app_draw(struct app *a, struct canvas *c);
void app_goto(struct app *a, uint64_t ev);
/* Show only events [0, n) (1 <= n <= nev): a lesson hides what comes
 * after a question's moment this way; the index is never edited. */
void app_set_visible(struct app *a, uint64_t n);

/* Searching. */
bool query_parse(struct query *q, const struct trace_index *ix, const char *s, char *err,
		 size_t errlen);
bool query_match(const struct query *q, const struct trace_index *ix, uint64_t ev);
void query_free(struct query *q);

/* Overlays and moves of their own files: the details of the event
 * under the cursor (details.c), the help pages and the legend (help.c),
 * the next/previous event of a kind (app.c). */
void details_draw(struct app *a, struct canvas *c);
bool details_key(struct app *a, int key); /* true: the key was for it */
void help_draw(struct app *a, struct canvas *c);
void help_key(struct app *a, int key);
int64_t nav_find(const struct app *a, int type, int dir); /* -1: none */
/* The next (dir +1) or previous event the filter shows, or -1. */
int64_t app_scan_visible(const struct app *a, int64_t from, int dir);
/* A list of `rows` rows with the cursor in its middle: the event of its
 * first filled row, and that row in *row (blank rows above it when fewer
 * visible events than rows / 2 precede the cursor). */
int64_t app_rows_top(const struct app *a, int rows, int *row);
/* The lane of an event (ncpus: the thread without a CPU; -1: none). */
int lane_of(const struct app *a, uint16_t cpu);
bool lane_picked(const struct app *a, int lane);
/* The compact lanes (lanes_compact.c), drawn instead of the text lanes
 * when asked (C) or when the text lanes cannot show every CPU. */
bool lanes_compact_wanted(struct app *a, struct rect r);
void lanes_compact_draw(struct app *a, struct canvas *c, struct rect r);
/* A lock class's letter and role in the compact lanes and the timeline. */
char class_letter(int cls);
int class_role(int cls);
void timeline_free(struct time_buckets *tb);

/* Panes' drawing helpers shared with app.c. */
void inode_hist_build(struct app *a, uint32_t obj);
uint32_t app_inode(const struct app *a); /* pinned, or the last one touched */
/* The inode an event names (inode, i_lock, op, wait and violation
 * events), UINT32_MAX if none. */
uint32_t event_inode(const struct trace_index *ix, uint64_t ev);

#endif
