/* cost.h - the work one request may ask for, counted in model points (one
 * point: one model evaluation and about SIMT_API_BYTES_PER_POINT bytes of
 * answer). /v1/compare counts GPUs x the question's points, a sweep its
 * points; a request over the budget is answered 413 `too_large` before any
 * work, with how to split it. The budget is process-wide, set once at start
 * (simtd --max-request-cost); reading it is thread-safe. */
#ifndef SIMT_API_COST_H
#define SIMT_API_COST_H

#include <stdint.h>

#define SIMT_API_DEFAULT_MAX_COST 16384u
#define SIMT_API_BYTES_PER_POINT 340

/* Sets the budget (points; 0 restores the default). */
void simt_api_set_max_cost(unsigned points);

/* The budget in points. */
unsigned simt_api_max_cost(void);

#endif
