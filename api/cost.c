/* cost.c - the process-wide request budget: see cost.h. */
#include "cost.h"

#include <stdatomic.h>

static atomic_uint max_cost = SIMT_API_DEFAULT_MAX_COST;

void simt_api_set_max_cost(unsigned points)
{
    atomic_store(&max_cost, points ? points : SIMT_API_DEFAULT_MAX_COST);
}

unsigned simt_api_max_cost(void)
{
    return atomic_load(&max_cost);
}
