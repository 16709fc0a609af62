#include "rt_stop.h"

#include <stddef.h>

int rt_stop_requested(const rt_stop *stop)
{
    return stop != NULL && stop->requested != NULL && stop->requested(stop->ctx) != 0;
}
