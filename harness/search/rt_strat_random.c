/* random: uniform sampling without replacement. It proposes nothing, so the driver draws every
 * point at random; it is the reference the methodology score is measured against. */
#include "rt_strategy_impl.h"

const rt_strategy_ops rt_strat_random_ops = {.name = "random"};
