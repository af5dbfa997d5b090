#define _GNU_SOURCE
#include "csystem.h"
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <termios.h>

int keyshelf_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int keyshelf_peer_credentials(int fd, uid_t *uid, pid_t *pid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *uid = cred.uid;
    *pid = cred.pid;
    return 0;
}

int keyshelf_process_is_stopped(pid_t pid) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char bytes[512];
    ssize_t n = read(fd, bytes, sizeof(bytes));
    close(fd);
    /* The state follows the last ')' (the command name may contain one). */
    ssize_t paren = -1;
    for (ssize_t i = 0; i < n; i++) if (bytes[i] == ')') paren = i;
    if (paren < 0 || paren + 2 >= n) return 0;
    return bytes[paren + 2] == 'T' || bytes[paren + 2] == 't';
}

int keyshelf_tty_echo_off(int fd) {
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    int token = (t.c_lflag & ECHO) ? 1 : 0;
    t.c_lflag &= ~(tcflag_t)ECHO;
    if (tcsetattr(fd, TCSAFLUSH, &t) != 0) return -1;
    return token;
}

int keyshelf_tty_echo_restore(int fd, int token) {
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    if (token) t.c_lflag |= ECHO; else t.c_lflag &= ~(tcflag_t)ECHO;
    return tcsetattr(fd, TCSAFLUSH, &t);
}

int keyshelf_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
