// System calls Swift cannot reach through Glibc (variadic prctl, struct ucred).
#ifndef KEYSHELF_CSYSTEM_H
#define KEYSHELF_CSYSTEM_H
#include <sys/types.h>

/// Sets RLIMIT_CORE to 0 and PR_SET_DUMPABLE to 0. Returns 0, or -1 with errno set.
int keyshelf_disable_core_dumps(void);

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of `bytes` or more get their
/// own mapping, unmapped when freed (and the threshold no longer moves).
/// Returns 1 on success, 0 on failure (malloc.h is not in Glibc's module).
int keyshelf_set_mmap_threshold(int bytes);

/// The uid and pid of the process at the other end of a connected Unix
/// socket (SO_PEERCRED). Returns 0, or -1 with errno set.
int keyshelf_peer_credentials(int fd, uid_t *uid, pid_t *pid);

/// 1 when process `pid` is stopped or traced (state T or t in
/// /proc/PID/stat, which every user may read), else 0 (also when it cannot
/// be read). Shared by the agent client and the thin client, which has no Foundation.
int keyshelf_process_is_stopped(pid_t pid);

/// Sets the terminal of `fd` to not echo input (returns the previous state
/// as an opaque token >= 0) or restores it. Returns -1 with errno on failure.
int keyshelf_tty_echo_off(int fd);
int keyshelf_tty_echo_restore(int fd, int token);

/// Starts `path` with `argv` and `envp` as a daemon: a new session (setsid),
/// standard input, output and error on /dev/null, every other descriptor
/// closed, no signal blocked and every signal at its default action
/// (posix_spawn with POSIX_SPAWN_SETSID, SETSIGMASK, SETSIGDEF and closefrom). The caller does
/// not wait for it. Returns 0 and the pid, or an errno value.
int keyshelf_spawn_daemon(const char *path, char *const argv[], char *const envp[], pid_t *pid);

/// Like keyshelf_spawn_daemon, but standard input is `stdin_fd` and standard
/// output `stdout_fd` when they are >= 0 (dup2'ed; /dev/null otherwise).
/// Standard error stays on /dev/null. Used for clipboard helpers, which must
/// hold no descriptor the caller waits on (xclip and wl-copy fork a server).
int keyshelf_spawn_detached(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd, pid_t *pid);

/// A pipe whose two ends are close-on-exec (pipe2 with O_CLOEXEC, which
/// Glibc does not export to Swift): fds[0] reads, fds[1] writes. Returns 0,
/// or -1 with errno set.
int keyshelf_pipe(int fds[2]);

/// Starts `path` with `argv` and `envp` as a child the caller waits for
/// (waitpid), in the working directory `directory`: standard input is
/// `stdin_fd` (/dev/null when -1), standard output and error `stdout_fd` and
/// `stderr_fd` (dup2'ed; each must be >= 3), every other descriptor closed,
/// no signal blocked and every signal at its default action. It stays in the
/// caller's session and process group, so a Ctrl-C at the terminal stops it
/// with the caller. Returns 0 and the pid, or an errno value (also when
/// `directory` cannot be entered or `path` cannot be executed).
int keyshelf_spawn_child(const char *path, char *const argv[], char *const envp[], const char *directory,
                         int stdin_fd, int stdout_fd, int stderr_fd, pid_t *pid);

#endif
