#define _GNU_SOURCE
#include "csystem.h"
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
