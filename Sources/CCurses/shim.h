// SwiftPM drops the -D flags of ncursesw.pc, so the wide-character API is
// switched on here, before curses.h is read.
#ifndef KEYSHELF_CCURSES_SHIM_H
#define KEYSHELF_CCURSES_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Swift cannot import these macros or read these globals under strict
// concurrency; the accessors below expose them.
static inline WINDOW *keyshelf_stdscr(void) { return stdscr; }
static inline int keyshelf_lines(void) { return LINES; }
static inline int keyshelf_cols(void) { return COLS; }
static inline int keyshelf_color_pairs(void) { return COLOR_PAIRS; }
static inline int keyshelf_colors(void) { return COLORS; }
static inline attr_t keyshelf_a_bold(void) { return A_BOLD; }
static inline attr_t keyshelf_a_reverse(void) { return A_REVERSE; }
static inline attr_t keyshelf_a_underline(void) { return A_UNDERLINE; }
static inline attr_t keyshelf_a_dim(void) { return A_DIM; }
static inline attr_t keyshelf_a_normal(void) { return A_NORMAL; }
static inline int keyshelf_key_f(int n) { return KEY_F(n); }
static inline attr_t keyshelf_color_pair(int n) { return COLOR_PAIR(n); }
// glibc declares wcwidth only under _XOPEN_SOURCE, which SwiftPM drops.
extern int wcwidth(wchar_t c);
static inline int keyshelf_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }
// setupterm lives in term.h, whose capability macros (lines, columns, …)
// would clash with ordinary names; this is its one declaration keyshelf needs.
extern int setupterm(const char *term, int filedes, int *errret);
#endif
