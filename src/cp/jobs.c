/* Many files in flight (jobs.h).

   Copyright (C) 2026 The cp8M authors.  GPLv3+ (see COPYING).  */

#include <config.h>

#include "jobs.h"

#include <pthread.h>
#include <stdlib.h>

#include "dest.h"
#include "diag.h"
#include "quotearg.h"
#include "scan.h"
#include "xalloc.h"

/* A job's thread's stack: the copy of one file, its messages, and the
   C library's calls below (gnulib's ACL and xattr copies).  */
enum { JOB_STACK = 1024 * 1024 };

/* Held back, in the walk's order: a job, what waits for the jobs before
   it (jobs_after: RUN NULL, DONE set), or the lines the walk printed
   after the entry before it (both NULL).  */
struct entry
{
  struct entry *next;       /* the walk's order */
  struct entry *next_todo;  /* the jobs no thread has taken yet */
  void (*run) (void *, struct engine_ctx *);
  void (*done) (void *);
  void *arg;
  bool finished;            /* RUN returned (under LOCK) */
  struct diag_log log;      /* its messages and lines */
};

struct jobs
{
  pthread_mutex_t lock;
  pthread_cond_t work;      /* a job to take, or STOP */
  pthread_cond_t finished;  /* a job finished */
  struct entry *head, *tail;
  struct entry *todo, *todo_tail;
  unsigned int held;        /* jobs between HEAD and TAIL */
  unsigned int max_held;
  unsigned int afters;      /* jobs_after's entries between them */
  bool stop;
  unsigned int n;
  pthread_t *threads;
  struct engine_ctx **engines;   /* one a thread */
  unsigned int n_engines;
  unsigned int next_slot;   /* dest.h's slot of the next thread made */
};

static void *
worker (void *arg)
{
  struct jobs *j = arg;
  pthread_mutex_lock (&j->lock);
  unsigned int slot = ++j->next_slot;
  struct engine_ctx *eng = j->engines[slot - 1];
  /* A fatal signal's cleanup undoes this thread's unfinished file too.  */
  dest_thread_slot (slot);
  for (;;)
    {
      while (!j->todo && !j->stop)
        pthread_cond_wait (&j->work, &j->lock);
      struct entry *e = j->todo;
      if (!e)
        break;
      j->todo = e->next_todo;
      pthread_mutex_unlock (&j->lock);
      diag_capture (&e->log);
      e->run (e->arg, eng);
      diag_capture (NULL);
      pthread_mutex_lock (&j->lock);
      e->finished = true;
      pthread_cond_broadcast (&j->finished);
    }
  pthread_mutex_unlock (&j->lock);
  /* The messages' quoting buffers are this thread's own (quotearg.c).  */
  quotearg_free ();
  return NULL;
}

struct jobs *
jobs_new (unsigned int n, struct engine_config const *cfg)
{
  if (n < 2)
    return NULL;
  struct jobs *j = xzalloc (sizeof *j);
  pthread_mutex_init (&j->lock, NULL);
  pthread_cond_init (&j->work, NULL);
  pthread_cond_init (&j->finished, NULL);
  /* Enough finished jobs waiting behind a slow one that the threads
     rarely idle for the walk's order.  */
  j->max_held = 4 * n;
  j->threads = xcalloc (n, sizeof *j->threads);
  j->engines = xcalloc (n, sizeof *j->engines);
  for (; j->n_engines < n; j->n_engines++)
    if (!(j->engines[j->n_engines] = engine_ctx_new (cfg)))
      {
        jobs_free (j);
        return NULL;
      }
  /* With every signal blocked (scan.h): they are the walk's thread's and
     the monitor's to take.  A stack of its own size: the C library's
     default is 8 MiB of address space a thread with glibc (ulimit -v),
     128 KiB with musl.  */
  for (; j->n < n; j->n++)
    if (!scan_thread_start (&j->threads[j->n], worker, j, JOB_STACK))
      break;
  if (j->n < 2)
    {
      jobs_free (j);
      return NULL;
    }
  return j;
}

/* Put E at the end of the walk's order.  (HEAD, TAIL and the entries'
   NEXT are the walk's thread's alone.)  */
static void
append (struct jobs *j, struct entry *e)
{
  if (j->tail)
    j->tail->next = e;
  else
    j->head = e;
  j->tail = e;
}

/* The walk's lines go after everything held: into an entry of their
   own at the end.  */
static void
capture_walk (struct jobs *j)
{
  struct entry *e = xzalloc (sizeof *e);
  e->finished = true;
  append (j, e);
  diag_capture (&e->log);
}

/* Print the first entry held and run its DONE, once it is finished
   (waiting for it with WAIT).  Return false when there is nothing to
   print yet.  */
static bool
pop (struct jobs *j, bool wait)
{
  pthread_mutex_lock (&j->lock);
  struct entry *e = j->head;
  while (wait && e && !e->finished)
    pthread_cond_wait (&j->finished, &j->lock);
  if (!e || !e->finished)
    {
      pthread_mutex_unlock (&j->lock);
      return false;
    }
  j->head = e->next;
  if (!j->head)
    j->tail = NULL;
  if (e->run)
    j->held--;
  else if (e->done)
    j->afters--;
  pthread_mutex_unlock (&j->lock);
  /* Everything before it is out: its lines go straight out, and
     whatever its DONE prints after them.  */
  diag_capture (NULL);
  diag_log_replay (&e->log);
  if (e->done)
    e->done (e->arg);
  if (j->tail)
    diag_capture (&j->tail->log);
  free (e);
  return true;
}

void
jobs_submit (struct jobs *j, void (*run) (void *, struct engine_ctx *),
             void (*done) (void *), void *arg)
{
  while (j->held >= j->max_held)
    pop (j, true);
  while (pop (j, false))
    continue;
  struct entry *e = xzalloc (sizeof *e);
  *e = (struct entry) { .run = run, .done = done, .arg = arg };
  append (j, e);
  pthread_mutex_lock (&j->lock);
  j->held++;
  if (j->todo)
    j->todo_tail->next_todo = e;
  else
    j->todo = e;
  j->todo_tail = e;
  pthread_cond_signal (&j->work);
  pthread_mutex_unlock (&j->lock);
  capture_walk (j);
}

void
jobs_after (struct jobs *j, void (*done) (void *), void *arg)
{
  while (j->afters >= j->n)
    pop (j, true);
  struct entry *e = xzalloc (sizeof *e);
  *e = (struct entry) { .done = done, .arg = arg, .finished = true };
  append (j, e);
  j->afters++;
  capture_walk (j);
}

void
jobs_drain (struct jobs *j)
{
  if (j)
    while (pop (j, true))
      continue;
}

void
jobs_free (struct jobs *j)
{
  if (!j)
    return;
  jobs_drain (j);
  pthread_mutex_lock (&j->lock);
  j->stop = true;
  pthread_cond_broadcast (&j->work);
  pthread_mutex_unlock (&j->lock);
  for (unsigned int i = 0; i < j->n; i++)
    pthread_join (j->threads[i], NULL);
  for (unsigned int i = 0; i < j->n_engines; i++)
    engine_ctx_free (j->engines[i]);
  pthread_mutex_destroy (&j->lock);
  pthread_cond_destroy (&j->work);
  pthread_cond_destroy (&j->finished);
  free (j->threads);
  free (j->engines);
  free (j);
}
