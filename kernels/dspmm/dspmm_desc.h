/* dspmm_desc: the "dspmm" family descriptor (see dspmm_family.h for the problem). */
#ifndef DSPMM_DESC_H
#define DSPMM_DESC_H

#include "rt_registry.h"

const rt_family_desc *rt_dspmm_family(void);

#endif
