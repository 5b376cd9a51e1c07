/* Progress lines for long operations (base/progress.h). The library prints them only when the user
 * asked (cl_set_progress): a library that writes to stderr unasked is a nuisance in pipes and logs. */
#include "base/progress.h"

#include <stdatomic.h>
#include <stdio.h>

#include "base/timer.h"
#include "cleave/status.h"

static atomic_int g_enabled;

void cl_set_progress(int enabled) { atomic_store(&g_enabled, enabled != 0); }

int cl_progress_enabled(void) { return atomic_load(&g_enabled); }

void cl_progress_begin(cl_progress *p, const char *task) {
  p->task = task;
  p->t0 = p->last = cl_time_ms();
  p->shown = 0;
  p->enabled = cl_progress_enabled();
}

void cl_progress_update(cl_progress *p, double done, double total, const char *unit) {
  if (!p->enabled) return;
  const double now = cl_time_ms();
  if (now - p->t0 < 2000.0 || now - p->last < 500.0) return;
  p->last = now;
  p->shown = 1;
  if (total > 0.0)
    fprintf(stderr, "\r%s: %3.0f%% (%.4g of about %.4g %s, %.0f s)   ", p->task, 100.0 * (done < total ? done / total : 1.0),
            done, total, unit, (now - p->t0) / 1000.0);
  else
    fprintf(stderr, "\r%s: %.4g %s, %.0f s   ", p->task, done, unit, (now - p->t0) / 1000.0);
  fflush(stderr);
}

void cl_progress_note(cl_progress *p, const char *what) {
  if (!p->enabled) return;
  p->shown = 1;
  fprintf(stderr, "%s: %s\n", p->task, what);
  fflush(stderr);
}

void cl_progress_end(cl_progress *p, const char *summary) {
  if (!p->enabled) return;
  const double s = (cl_time_ms() - p->t0) / 1000.0;
  if (!p->shown && s < 2.0) return;
  fprintf(stderr, "\r%s: done in %.1f s%s%s%s   \n", p->task, s, summary ? " (" : "", summary ? summary : "",
          summary ? ")" : "");
  fflush(stderr);
}
