/* sim/auto_host.c — a trace's median residual, the lead the auto seed
 * reads a profile for (auto_host.h). */
#include "sim/auto_host.h"

#include "core/nearest_rank.h"

#include "sim/rank_select.h"

gar_dur_ns gar_auto_host_lead_of(const gar_trace *trace, uint64_t *v, uint64_t *tmp)
{
    size_t n = trace->count;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        v[i] = gar_since(trace->row[i].done_ns, trace->row[i].start_ns);
    const size_t rank[] = { gar_nearest_rank_index(n, 500000) };
    uint64_t median;
    gar_rank_select(v, tmp, n, rank, 1, &median);
    return median;
}
