#include "sp2_state.h"

#include <string.h>

#include "rt_clock.h"

void sp2_c_zero(sp2_state *s)
{
    if (s->spgemm) {
        for (int q = 0; q < s->n_c; ++q)
            sp2_spacc_clear(&s->c_acc[q]);
    } else if (s->c_elems > 0) {
        memset(s->c_data, 0, (size_t)s->c_elems * s->eb);
    }
}

/* Queue work done inside a call is accumulation; the rest of the call's time is communication. */
double sp2_handler_time(const sp2_state *s)
{
    if (!s->queue)
        return 0.0;
    sp2_queue_stats st;
    sp2_queue_stats_read(s->queue, &st);
    return st.handler_s;
}

void sp2_add_etimes(sp2_state *s, const sp2_etimes *t)
{
    s->run.compute += t->compute;
    s->run.staging += t->staging;
}
