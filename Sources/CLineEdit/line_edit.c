#include "line_edit.h"

#include <errno.h>
#include <fcntl.h>
#include <histedit.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#define MAX_COMPLETIONS 256

struct le_editor {
    EditLine *el;
    History *history;
    char *history_path;
    const char *prompt;
    le_completer completer;
    void *context;
    int interrupted;
};

/* Written by le_interrupt (a signal handler) and le_shutdown; read by the character reader below. */
static int wake_pipe[2] = {-1, -1};
static atomic_int shutting_down;

void le_interrupt(void) {
    if (wake_pipe[1] >= 0) {
        char c = 'i';
        ssize_t written = write(wake_pipe[1], &c, 1);
        (void)written;
    }
}

void le_shutdown(void) {
    atomic_store(&shutting_down, 1);
    if (wake_pipe[1] >= 0) {
        char c = 's';
        ssize_t written = write(wake_pipe[1], &c, 1);
        (void)written;
    }
}

static char *prompt_of(EditLine *el) {
    le_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    return (char *)(editor && editor->prompt ? editor->prompt : "");
}

/* One character from standard input (UTF-8 decoded), or -1 when Ctrl-C or a shutdown woke us: libedit then
 * ends the line it was reading. 0 is end of input. */
static int read_character(EditLine *el, wchar_t *out) {
    le_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    unsigned char bytes[4];
    for (;;) {
        if (atomic_load(&shutting_down)) return -1;
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_pipe[0], POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (fds[1].revents & POLLIN) {
            char drained[16];
            ssize_t got = read(wake_pipe[0], drained, sizeof drained);
            (void)got;
            if (atomic_load(&shutting_down)) return -1;
            if (editor) editor->interrupted = 1;
            return -1;
        }
        if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t got = read(STDIN_FILENO, bytes, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        break;
    }
    int length = bytes[0] < 0x80 ? 1 : (bytes[0] >> 5) == 6 ? 2 : (bytes[0] >> 4) == 14 ? 3 : (bytes[0] >> 3) == 30 ? 4 : 1;
    for (int i = 1; i < length; i++) {
        if (read(STDIN_FILENO, &bytes[i], 1) != 1) return 0;
    }
    mbstate_t state;
    memset(&state, 0, sizeof state);
    wchar_t wide;
    if (mbrtowc(&wide, (const char *)bytes, (size_t)length, &state) > (size_t)length) wide = (wchar_t)bytes[0];
    *out = wide;
    return 1;
}

static int is_name_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':';
}

/* Tab: one completion replaces the name before the cursor; several insert what they share and are listed. */
static unsigned char complete(EditLine *el, int ch) {
    (void)ch;
    le_editor *editor = NULL;
    el_get(el, EL_CLIENTDATA, &editor);
    if (!editor || !editor->completer) return CC_ERROR;
    const LineInfo *line = el_line(el);
    size_t before_length = (size_t)(line->cursor - line->buffer);
    char *before = malloc(before_length + 1);
    if (!before) return CC_ERROR;
    memcpy(before, line->buffer, before_length);
    before[before_length] = 0;
    size_t word = before_length;
    while (word > 0 && is_name_character(before[word - 1])) word--;
    char *matches[MAX_COMPLETIONS];
    int count = editor->completer(before, matches, MAX_COMPLETIONS, editor->context);
    unsigned char result = CC_REFRESH_BEEP;
    if (count > 0) {
        size_t shared = strlen(matches[0]);
        for (int i = 1; i < count; i++) {
            size_t j = 0;
            while (j < shared && matches[i][j] == matches[0][j]) j++;
            shared = j;
        }
        size_t typed = before_length - word;
        if (shared > typed || count == 1) {
            el_deletestr(el, (int)typed);
            char saved = matches[0][shared];
            matches[0][shared] = 0;
            el_insertstr(el, matches[0]);
            matches[0][shared] = saved;
            result = CC_REFRESH;
        }
        if (count > 1 && shared <= typed) {
            fputc('\n', stdout);
            for (int i = 0; i < count; i++) fprintf(stdout, "%s%s", matches[i], i + 1 < count ? "  " : "\n");
            fflush(stdout);
            result = CC_REDISPLAY;
        }
    }
    for (int i = 0; i < count; i++) free(matches[i]);
    free(before);
    return result;
}

le_editor *le_open(const char *program, const char *history_path, le_completer completer, void *context) {
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return NULL;
    if (wake_pipe[0] < 0) {
        if (pipe(wake_pipe) != 0) return NULL;
        fcntl(wake_pipe[0], F_SETFL, O_NONBLOCK);
        fcntl(wake_pipe[1], F_SETFL, O_NONBLOCK);
    }
    le_editor *editor = calloc(1, sizeof *editor);
    if (!editor) return NULL;
    editor->el = el_init(program, stdin, stdout, stderr);
    if (!editor->el) {
        free(editor);
        return NULL;
    }
    editor->completer = completer;
    editor->context = context;
    editor->history = history_init();
    HistEvent event;
    history(editor->history, &event, H_SETSIZE, 1000);
    history(editor->history, &event, H_SETUNIQUE, 1);
    if (history_path) {
        editor->history_path = strdup(history_path);
        history(editor->history, &event, H_LOAD, history_path);
    }
    el_set(editor->el, EL_CLIENTDATA, editor);
    el_set(editor->el, EL_EDITOR, "emacs");
    el_set(editor->el, EL_SIGNAL, 0); /* the process's own handlers stay: Ctrl-C reaches le_interrupt */
    el_set(editor->el, EL_PROMPT, prompt_of);
    el_set(editor->el, EL_HIST, history, editor->history);
    el_set(editor->el, EL_GETCFN, read_character);
    el_set(editor->el, EL_ADDFN, "retrolua-complete", "complete a name", complete);
    el_set(editor->el, EL_BIND, "^I", "retrolua-complete", NULL);
    el_source(editor->el, NULL); /* the user's ~/.editrc, as every libedit program reads it */
    return editor;
}

const char *le_read(le_editor *editor, const char *prompt, int *interrupted) {
    editor->prompt = prompt;
    editor->interrupted = 0;
    *interrupted = 0;
    if (atomic_load(&shutting_down)) return NULL;
    int count = 0;
    const char *line = el_gets(editor->el, &count);
    if (editor->interrupted) {
        *interrupted = 1;
        el_reset(editor->el);
        return "";
    }
    if (!line || count <= 0 || atomic_load(&shutting_down)) return NULL;
    static char *copy;
    free(copy);
    copy = strdup(line);
    if (!copy) return NULL;
    size_t length = strlen(copy);
    if (length > 0 && copy[length - 1] == '\n') copy[length - 1] = 0;
    return copy;
}

void le_remember(le_editor *editor, const char *line) {
    HistEvent event;
    if (line[0]) history(editor->history, &event, H_ENTER, line);
}

void le_close(le_editor *editor) {
    if (!editor) return;
    HistEvent event;
    if (editor->history_path) history(editor->history, &event, H_SAVE, editor->history_path);
    el_end(editor->el);
    history_end(editor->history);
    free(editor->history_path);
    free(editor);
}
