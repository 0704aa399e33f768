/*
 * tmux.h - the suites' real terminal: one tmux server per test process.
 *
 * A terminal UI is tested in a real terminal: tmux runs the program in a
 * detached session of a given size, send-keys types, capture-pane reads
 * the screen.  Each suite calls tmux_init() in its (unchecked) fixture, so
 * its server is named after the process that runs the fixture: two runs
 * of one suite at once (several worktrees on one machine) share nothing.
 * Check forks each test from that process, so the tests reach the same
 * server.  tmux_done() in the fixture's cleanup removes it.
 */
#ifndef TESTS_TMUX_H
#define TESTS_TMUX_H

#include <stdbool.h>

/* Start the server "TAG-PID" with a session that keeps it up. */
void tmux_init(const char *tag);
/* Kill the server and remove its socket. */
void tmux_done(void);
/* "tmux -L NAME", for a command the helpers below do not cover. */
const char *tmux_cmd(void);

/*
 * Run the shell command cmd (no single quotes in it) in session sess, in a
 * w x h terminal, after killing any earlier session of that name.  When
 * cmd ends the terminal says EXIT=<its status> and stays 30 s.
 */
void tmux_start(const char *sess, int w, int h, const char *cmd);
/*
 * icache-view on trace (env: "VAR=value ..." or "") in a w x h terminal,
 * up and done indexing; a test failure if it is not within 20 s + 30 s.
 */
void tmux_view(const char *sess, int w, int h, const char *env, const char *trace);
/* send-keys: k is tmux's notation ("q", "C-c Enter", "-l 'text'"). */
void tmux_keys(const char *sess, const char *k);
void tmux_set_size(const char *sess, int w, int h);
void tmux_kill(const char *sess);
/* Kill every session but the server's keeper: a checked fixture's
 * teardown, so that a case's tests need not close their terminals. */
void tmux_kill_tests(void);

/* The screen's text (escapes: with its SGR colour escapes); malloc'd. */
char *tmux_capture(const char *sess, bool escapes);
/* The screen once it shows text (malloc'd), NULL after secs (each wait
 * below is scaled by test_slowdown(): sanitizer builds are slower). */
char *tmux_wait_screen(const char *sess, const char *text, double secs);
/* Does the screen show text within secs? */
bool tmux_wait_for(const char *sess, const char *text, double secs);
/* Is text off the screen within secs? */
bool tmux_wait_gone(const char *sess, const char *text, double secs);
/*
 * Type k, then wait up to secs for text on the screen: a test failure
 * naming the keys and the text if it does not show.  The _screen form
 * returns the screen captured after it (malloc'd).
 */
void tmux_expect(const char *sess, const char *k, const char *text, double secs);
char *tmux_expect_screen(const char *sess, const char *k, const char *text, double secs);
/* Go to event n (": n Enter") and wait for the status line's "#n/". */
void tmux_goto(const char *sess, long n);

void sleep_ms(int ms);

#endif
