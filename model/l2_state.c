/* l2_state.c - the dirty lines a cold launch evicts (l2_state.h). Pure. */
#include "l2_state.h"

#include <math.h>

/* dirty bytes evicted by f bytes of fills: D (1 - exp(-f / C)) */
static double evicted(double dirty, double fills, double capacity)
{
    return dirty * -expm1(-fills / capacity);
}

double simt_cold_l2_write_back(double capacity, double fills, double own_writes)
{
    if (!(capacity > 0.0) || !(fills > 0.0))
        return 0.0;
    double dirty = SIMT_COLD_L2_DIRTY_FRACTION * capacity;
    return fmax(0.0, evicted(dirty, fills, capacity) - evicted(dirty, own_writes, capacity));
}
