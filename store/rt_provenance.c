/* rt_provenance: what the store can learn about the build and host by itself.
 * The runner fills the rest (device, CUDA and MPI versions, topology, config). */
#define _XOPEN_SOURCE 700 /* gethostname */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_build_info.h"
#include "rt_store.h"
#include "rt_strutil.h"

void rt_provenance_init(rt_provenance *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->git_revision, sizeof p->git_revision, "%s", RT_GIT_REVISION);
    p->git_dirty = RT_GIT_DIRTY ? 1 : 0;
    snprintf(p->compiler, sizeof p->compiler, "%s", RT_COMPILER_ID);
    if (gethostname(p->host, sizeof p->host) != 0)
        snprintf(p->host, sizeof p->host, "unknown");
    /* POSIX leaves the name unterminated when it was truncated. */
    p->host[sizeof p->host - 1] = '\0';
    p->nranks = 1;
    /* Resume reuses points only from the same build: a dirty tree or another compiler may
     * change the numbers, so both are part of the id. A compiler id too long for the field is
     * replaced by its hash, so that two long ids never collapse into the same prefix. */
    char full[sizeof p->git_revision + sizeof p->compiler + 16];
    snprintf(full, sizeof full, "%s%s/%s", p->git_revision, p->git_dirty ? "+dirty" : "",
             p->compiler);
    if (strlen(full) < sizeof p->build_id) {
        memcpy(p->build_id, full, strlen(full) + 1);
    } else {
        char compiler_hash[17];
        rt_hash_hex(rt_hash64(p->compiler, strlen(p->compiler), 0), compiler_hash);
        snprintf(p->build_id, sizeof p->build_id, "%.40s%s/%s", p->git_revision,
                 p->git_dirty ? "+dirty" : "", compiler_hash);
    }
}
