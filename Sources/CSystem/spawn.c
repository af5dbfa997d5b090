#define _GNU_SOURCE
#include "csystem.h"
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

int keyshelf_spawn_daemon(const char *path, char *const argv[], char *const envp[], pid_t *pid) {
    return keyshelf_spawn_detached(path, argv, envp, -1, -1, pid);
}

// Standard descriptor `target` from `fd`, or /dev/null opened with `flags` when fd is -1.
static int standard_descriptor(posix_spawn_file_actions_t *actions, int fd, int target, int flags) {
    return fd >= 0 ? posix_spawn_file_actions_adddup2(actions, fd, target)
                   : posix_spawn_file_actions_addopen(actions, target, "/dev/null", flags, 0);
}

// posix_spawn with standard input, output and error from `stdio` (-1: /dev/null),
// every other descriptor closed, clean signals, `extra_flags` (e.g. POSIX_SPAWN_SETSID)
// and, when `directory` is not NULL, that working directory.
static int spawn_clean(const char *path, char *const argv[], char *const envp[], const int stdio[3],
                       short extra_flags, const char *directory, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    // Signal mask and dispositions are inherited across exec: start clean.
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, extra_flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (rc == 0) rc = standard_descriptor(&actions, stdio[0], 0, O_RDONLY);
    if (rc == 0) rc = standard_descriptor(&actions, stdio[1], 1, O_WRONLY);
    if (rc == 0) rc = standard_descriptor(&actions, stdio[2], 2, O_WRONLY);
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (rc == 0 && directory != NULL) rc = posix_spawn_file_actions_addchdir_np(&actions, directory);
    if (rc == 0) rc = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

int keyshelf_spawn_detached(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd, pid_t *pid) {
    const int stdio[3] = {stdin_fd, stdout_fd, -1};
    return spawn_clean(path, argv, envp, stdio, POSIX_SPAWN_SETSID, NULL, pid);
}

int keyshelf_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int keyshelf_spawn_child(const char *path, char *const argv[], char *const envp[], const char *directory,
                         int stdin_fd, int stdout_fd, int stderr_fd, pid_t *pid) {
    const int stdio[3] = {stdin_fd, stdout_fd, stderr_fd};
    return spawn_clean(path, argv, envp, stdio, 0, directory, pid);
}
