/* The attacker of tests/path-races.sh: a local user who swaps a node that
   cp8M has just made for a symbolic link to a file of root's, at the
   worst moment.

   swapper PIDFILE SYSCALL DIR NAME TARGET
       Wait until the process whose number PIDFILE holds has a thread
       held at the entry of the system call SYSCALL (strace's delay_enter
       holds it there: the thread stays in that state for the delay, which
       a passing call does not), then exchange DIR/NAME with a new
       symbolic link to TARGET (renameat2 RENAME_EXCHANGE: the node ends
       up as DIR/.swapped, the link under its name), so that the held
       call, if it goes by name, follows the link.  Exit 0 when it
       swapped; 2 when the process ended first, or DIR/NAME did not exist
       at the call (nothing to swap: a file still unnamed); 1 on error.

   swapper --exchange PIDFILE SYSCALL DIR NAME NODE
       The same, but exchange DIR/NAME with NODE, an existing node on
       the same file system (a node of another user's, which then takes
       the name of the one the process made).

   swapper --socket PATH
       Make a UNIX socket node at PATH (mknod cannot, for an unprivileged
       test).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
# define RENAME_EXCHANGE (1 << 1)
#endif

/* The calls that change a file's metadata, by strace's names.  */
static struct
{
  char const *name;
  long nr;
} const calls[] = {
#define CALL(x) { #x, SYS_##x },
#ifdef SYS_chmod
  CALL (chmod)
#endif
#ifdef SYS_chown
  CALL (chown)
#endif
#ifdef SYS_lchown
  CALL (lchown)
#endif
#ifdef SYS_utimes
  CALL (utimes)
#endif
#ifdef SYS_futimesat
  CALL (futimesat)
#endif
  CALL (fchmod) CALL (fchmodat) CALL (fchown) CALL (fchownat)
  CALL (utimensat) CALL (setxattr) CALL (lsetxattr) CALL (fsetxattr)
  CALL (removexattr) CALL (lremovexattr) CALL (fremovexattr)
  /* Those that make a node, or a link to one (tests/made-nodes.sh).  */
  CALL (mkdirat) CALL (mknodat) CALL (symlinkat) CALL (linkat)
#undef CALL
};

static long
syscall_number (char const *name)
{
  for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
    if (strcmp (calls[i].name, name) == 0)
      return calls[i].nr;
  return -1;
}

/* 1 when a thread of PID is at the entry of system call NR, 0 when none
   is, -1 when PID has ended (gone, or a zombie).  */
static int
in_call (pid_t pid, long nr)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  FILE *f = fopen (path, "r");
  char state = 'X';
  if (f)
    {
      /* The state follows the command's closing parenthesis.  */
      char buf[512];
      size_t n = fread (buf, 1, sizeof buf - 1, f);
      buf[n] = '\0';
      char *p = strrchr (buf, ')');
      if (p && p[1] == ' ')
        state = p[2];
      fclose (f);
    }
  if (state == 'X' || state == 'Z')
    return -1;
  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  DIR *d = opendir (path);
  if (!d)
    return -1;
  int found = 0;
  struct dirent *e;
  while (!found && (e = readdir (d)))
    {
      if (e->d_name[0] == '.')
        continue;
      char file[sizeof path + 300];
      snprintf (file, sizeof file, "%s/%s/syscall", path, e->d_name);
      f = fopen (file, "r");
      long n;
      if (f && fscanf (f, "%ld", &n) == 1 && n == nr)
        found = 1;
      if (f)
        fclose (f);
    }
  closedir (d);
  return found;
}

static void
pause_ms (long ms)
{
  struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };
  nanosleep (&t, NULL);
}

static pid_t
read_pid (char const *file)
{
  /* The test starts us before the copy: wait for its number (30 s).  */
  for (int i = 0; i < 30000; i++)
    {
      FILE *f = fopen (file, "r");
      int pid;
      bool ok = f && fscanf (f, "%d", &pid) == 1;
      if (f)
        fclose (f);
      if (ok)
        return pid;
      pause_ms (1);
    }
  return -1;
}

static int
make_socket (char const *name)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  if (strlen (name) >= sizeof a.sun_path)
    return 1;
  strcpy (a.sun_path, name);
  int s = socket (AF_UNIX, SOCK_STREAM, 0);
  if (s < 0 || bind (s, (struct sockaddr *) &a, sizeof a) != 0)
    {
      perror (name);
      return 1;
    }
  close (s);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--socket") == 0)
    return make_socket (argv[2]);
  bool exchange = argc == 7 && strcmp (argv[1], "--exchange") == 0;
  if (exchange)
    argv++, argc--;
  if (argc != 6)
    {
      fprintf (stderr, "usage: swapper [--exchange] PIDFILE SYSCALL DIR NAME"
               " TARGET\n");
      return 1;
    }
  long nr = syscall_number (argv[2]);
  pid_t pid = read_pid (argv[1]);
  if (nr < 0 || pid < 0)
    {
      fprintf (stderr, "swapper: unknown call %s, or no pid\n", argv[2]);
      return 1;
    }
  /* Held for 20 ms running: the delayed call, not one passing by.  */
  for (int seen = 0; seen < 20; )
    {
      int r = in_call (pid, nr);
      if (r < 0)
        return 2;
      seen = r ? seen + 1 : 0;
      pause_ms (1);
    }

  char name[4096], link[4096];
  snprintf (name, sizeof name, "%s/%s", argv[3], argv[4]);
  char *slash = strrchr (name, '/');
  snprintf (link, sizeof link, "%.*s/.swapped", (int) (slash - name), name);
  struct stat st;
  if (lstat (name, &st) != 0)
    return 2;
  if (exchange)
    {
      if (syscall (SYS_renameat2, AT_FDCWD, argv[5], AT_FDCWD, name,
                   RENAME_EXCHANGE) != 0)
        {
          perror (name);
          return 1;
        }
      return 0;
    }
  unlink (link);
  if (symlink (argv[5], link) != 0
      || syscall (SYS_renameat2, AT_FDCWD, link, AT_FDCWD, name,
                  RENAME_EXCHANGE) != 0)
    {
      perror (name);
      return 1;
    }
  return 0;
}
