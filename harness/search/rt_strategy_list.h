/* The strategy list: one line per search strategy, and the only place a strategy is named.
 *
 * RT_STRATEGY(s)   harness/search/rt_strat_s.c defines  const rt_strategy_ops rt_strat_s_ops;
 *                  whose info.name is "s".
 *
 * The includer defines the macro before including this file (an X-macro list, so it has no include
 * guard). The order is the order of `list`, `replay --strategy all`, the docs and the "expected one
 * of" messages. */
RT_STRATEGY(exhaustive)
RT_STRATEGY(random)
RT_STRATEGY(anneal)
RT_STRATEGY(genetic)
RT_STRATEGY(diffevo)
RT_STRATEGY(ils)
RT_STRATEGY(basinhop)
RT_STRATEGY(pso)
RT_STRATEGY(bayes)
RT_STRATEGY(tpe)
RT_STRATEGY(hybrid)
RT_STRATEGY(tpeils)
