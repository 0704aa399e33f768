/*
 * keys.h - the --keys notation of icache-view and icache-lesson.
 *
 * A string of keys typed in order: plain characters stand for
 * themselves, "\n" for Enter, and a name in angle brackets for a special
 * key: <Enter> <CR> <Tab> <S-Tab> <Esc> <Space> <BS> <Up> <Down> <Left>
 * <Right> <PgUp> <PgDn> <Home> <End> <F1> <F10>, and <lt> <gt> for the
 * brackets themselves.  An unknown <name> is typed as its characters.
 */
#ifndef LIB_KEYS_H
#define LIB_KEYS_H

/* Key codes (characters or ncurses KEY_*) into out; returns how many. */
int keys_parse(const char *s, int *out, int max);

/* The line a help screen shows for the notation. */
#define KEYS_NOTATION_HELP "--keys notation: <Enter> <Tab> <Esc> <Up> <Down> <PgDn> <F1> ..."

#endif /* LIB_KEYS_H */
