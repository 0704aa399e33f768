/*
 * tmux.c - the suites' real terminal (see tmux.h).
 */
#include "tests/tmux.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/testutil.h"

/* "tmux -L TAG-PID": set once by the fixture, before Check forks. */
static char server[96] = "tmux";

const char *tmux_cmd(void)
{
	return server;
}

void sleep_ms(int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

void tmux_init(const char *tag)
{
	int st;
	snprintf(server, sizeof(server), "tmux -L %s-%d", tag, (int)getpid());
	/* A server exits with its last session, and that exit races the
	 * next new-session: one idle session keeps it up for the suite. */
	free(run_cmd(&st, "%s new-session -d -s keep -x 80 -y 24 'sleep 3600'", server));
}

void tmux_done(void)
{
	int st;
	free(run_cmd(&st, "%s kill-server 2>/dev/null", server));
	/* tmux leaves the socket behind */
	free(run_cmd(&st, "rm -f \"${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/%s\"", server + 8));
}

void tmux_start(const char *sess, int w, int h, const char *cmd)
{
	int st;
	tmux_kill(sess);
	free(run_cmd(&st, "%s new-session -d -s %s -x %d -y %d '%s; echo EXIT=$?; sleep 30'",
		     server, sess, w, h, cmd));
	ck_assert_msg(st == 0, "tmux did not start session %s", sess);
}

void tmux_view(const char *sess, int w, int h, const char *env, const char *trace)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "env LANG=C.UTF-8 %s %s %s", env, bin_path("icache-view"),
		 trace);
	tmux_start(sess, w, h, cmd);
	ck_assert_msg(tmux_wait_for(sess, "Events by CPU", 20), "%s: the viewer did not come up",
		      sess);
	/* It comes up while still indexing: the callers want all of it. */
	ck_assert_msg(tmux_wait_gone(sess, "indexing", 30),
		      "%s: the viewer is still indexing after 30 s", sess);
}

void tmux_keys(const char *sess, const char *k)
{
	int st;
	free(run_cmd(&st, "%s send-keys -t %s %s", server, sess, k));
}

void tmux_set_size(const char *sess, int w, int h)
{
	int st;
	free(run_cmd(&st, "%s resize-window -t %s -x %d -y %d", server, sess, w, h));
}

void tmux_kill(const char *sess)
{
	int st;
	free(run_cmd(&st, "%s kill-session -t %s 2>/dev/null", server, sess));
}

void tmux_kill_tests(void)
{
	int st;
	free(run_cmd(&st, "%s kill-session -a -t keep 2>/dev/null", server));
}

char *tmux_capture(const char *sess, bool escapes)
{
	int st;
	return run_cmd(&st, "%s capture-pane -p %s -t %s 2>/dev/null", server, escapes ? "-e" : "",
		       sess);
}

char *tmux_wait_screen(const char *sess, const char *text, double secs)
{
	for (int i = 0; i < (int)(secs * test_slowdown() * 20); i++) {
		char *s = tmux_capture(sess, false);
		if (strstr(s, text))
			return s;
		free(s);
		sleep_ms(50);
	}
	return NULL;
}

bool tmux_wait_for(const char *sess, const char *text, double secs)
{
	char *s = tmux_wait_screen(sess, text, secs);
	bool shown = s != NULL;
	free(s);
	return shown;
}

bool tmux_wait_gone(const char *sess, const char *text, double secs)
{
	for (int i = 0; i < (int)(secs * test_slowdown() * 20); i++) {
		char *s = tmux_capture(sess, false);
		bool there = strstr(s, text) != NULL;
		free(s);
		if (!there)
			return true;
		sleep_ms(50);
	}
	return false;
}

void tmux_expect(const char *sess, const char *k, const char *text, double secs)
{
	tmux_keys(sess, k);
	ck_assert_msg(tmux_wait_for(sess, text, secs), "%s: after keys %s, no '%s' on the screen",
		      sess, k, text);
}

char *tmux_expect_screen(const char *sess, const char *k, const char *text, double secs)
{
	tmux_expect(sess, k, text, secs);
	return tmux_capture(sess, false);
}

void tmux_goto(const char *sess, long n)
{
	char k[64], status[32];
	snprintf(k, sizeof(k), ": %ld Enter", n);
	snprintf(status, sizeof(status), "#%ld/", n);
	tmux_expect(sess, k, status, 5);
}
