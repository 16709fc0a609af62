/* The strategy list of the test build: the project's list plus the toy strategy `toy`, whose file
 * (tests/search/toy/rt_strat_toy.c) is written exactly as a strategy under harness/search/ would
 * be. */
#include "../../../harness/search/rt_strategy_list.h"
RT_STRATEGY(toy)
