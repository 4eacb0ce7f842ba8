/* A restart written on a thread of its own (fortran/field_io.f90's
 * start_field_dump and finish_field_dump): the run's final restart is
 * fetched from the device, then written, read back and synced by this
 * thread while the main thread makes the other outputs (flow.vts, the
 * profiles) from the same state; field.dump, which names the restart's
 * file, waits for it. The writer is fortran/field_file.c's adi_dump_save,
 * unchanged: the same file, the same checks, the same commit.
 *
 * The caller keeps q unchanged until the finish (the main thread reads the
 * interior and writes only the ghost cells, which the dump does not hold).
 * A process that ends while a job runs (an output's failure stops the run
 * with exit code 5) waits for it at exit, so the restart is either
 * committed or its temporary removed, never left half written. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field_format.h"

typedef struct adi_dump_job {
  pthread_t thread;
  int started;            /* 0: the thread could not start, the dump was written at once */
  char *path;
  int32_t dims[6], place[9];
  const double *q;
  int64_t iteration;
  double res0[5];
  int rc;
  char msg[1024];
} adi_dump_job;

/* The job still running, for the exit hook: one at a time (the run's final
 * restart); a global because atexit's hooks take no argument. */
static adi_dump_job *job_pending;

static void *job_body(void *arg)
{
  adi_dump_job *j = (adi_dump_job *)arg;
  j->rc = adi_dump_save(j->path, j->dims, j->place, j->q, j->iteration, j->res0, j->msg, (int)sizeof j->msg);
  return NULL;
}

static void join_at_exit(void)
{
  if (job_pending != NULL && job_pending->started) pthread_join(job_pending->thread, NULL);
  job_pending = NULL;
}

/* 0 with *job set (its result comes from adi_dump_save_finish), or ENOMEM
 * with the reason in msg. */
int adi_dump_save_start(const char *path, const int32_t *dims, const int32_t *place, const double *q,
                        int64_t iteration, const double *res0, adi_dump_job **job, char *msg, int msglen)
{
  static int hooked;
  adi_dump_job *j = calloc(1, sizeof *j);
  *job = NULL;
  if (j == NULL || (j->path = malloc(strlen(path) + 1)) == NULL) {
    free(j);
    snprintf(msg, (size_t)msglen, "out of memory to write \"%s\"", path);
    return ENOMEM;
  }
  strcpy(j->path, path);
  memcpy(j->dims, dims, sizeof j->dims);
  memcpy(j->place, place, sizeof j->place);
  memcpy(j->res0, res0, sizeof j->res0);
  j->q = q;
  j->iteration = iteration;
  if (!hooked) hooked = atexit(join_at_exit) == 0;
  /* no thread (or no exit hook to wait for one): the same write, at once */
  j->started = hooked && pthread_create(&j->thread, NULL, job_body, j) == 0;
  if (!j->started) job_body(j);
  job_pending = j;
  *job = j;
  return 0;
}

/* Wait for the job: adi_dump_save's result, its message in msg; the job is
 * freed. */
int adi_dump_save_finish(adi_dump_job *job, char *msg, int msglen)
{
  int rc;
  if (job == NULL) return 0;
  if (job->started) pthread_join(job->thread, NULL);
  if (job_pending == job) job_pending = NULL;
  rc = job->rc;
  snprintf(msg, (size_t)msglen, "%s", job->msg);
  free(job->path);
  free(job);
  return rc;
}
