/* Progress lines for long operations (cl_set_progress in cleave/status.h): a task started with
 * cl_progress_begin and updated from the thread that runs it shows nothing for its first 2 s, then a
 * self-overwriting line on stderr at most twice a second, and its elapsed time when it ends. */
#ifndef CL_BASE_PROGRESS_H
#define CL_BASE_PROGRESS_H

typedef struct cl_progress {
  const char *task;  /* "Poisson sampling" */
  double t0, last;   /* ms, cl_time_ms */
  int shown;         /* a line was printed */
  int enabled;       /* progress was on when the task began */
} cl_progress;

int cl_progress_enabled(void);
void cl_progress_begin(cl_progress *p, const char *task);
/* done of total (total <= 0: unknown), in `unit` ("points"). Cheap when nothing is printed. */
void cl_progress_update(cl_progress *p, double done, double total, const char *unit);
/* Say a line now (a task that cannot report while it runs, e.g. TetGen: what it is doing). */
void cl_progress_note(cl_progress *p, const char *what);
/* End the task: "task: done in 12.3 s (summary)" when a line was shown (or the task ran 2 s or more). */
void cl_progress_end(cl_progress *p, const char *summary);

#endif
