#ifndef RETROLUA_LINE_EDIT_H
#define RETROLUA_LINE_EDIT_H

/* Line editing for the console (`retrolua attach`, `run --console`) over Debian's libedit: a prompt with
 * editing keys, history kept in a file, Tab completion through a callback, and Ctrl-C that cancels the line
 * (the process's SIGINT calls le_interrupt) instead of ending the program. Swift cannot call libedit's
 * variadic el_set, so this file does. */

/* Completions of the text before the cursor: the callback returns how many it wrote into `out` (at most
 * `capacity` malloc'd strings, each a whole dotted name, which this file frees). */
typedef int (*le_completer)(const char *before_cursor, char **out, int capacity, void *context);

typedef struct le_editor le_editor;

/* NULL when the terminal cannot be edited (the caller then reads plain lines). */
le_editor *le_open(const char *program, const char *history_path, le_completer completer, void *context);
/* The next line without its newline, valid until the next call; NULL at end of input (Ctrl-D) or once
 * le_shutdown was called. *interrupted is 1 when Ctrl-C cancelled the line (the result is then ""). */
const char *le_read(le_editor *editor, const char *prompt, int *interrupted);
void le_remember(le_editor *editor, const char *line);
/* Writes the history file and gives the terminal back. */
void le_close(le_editor *editor);

/* Async-signal-safe: the line being typed is cancelled (SIGINT). */
void le_interrupt(void);
/* From any thread: le_read returns NULL soon (the run ended). */
void le_shutdown(void);

#endif
