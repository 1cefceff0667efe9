/* experiments/report/plot_arms.c — which arms a plot draws, and the plans
 * it shows named among themselves. */
#include "report/plot_arms.h"

#include <string.h>

#include "report/plan_names.h"
#include "sweep/format.h"

bool gar_plot_same_host_mode(const gar_arm_summary *a, const gar_arm_summary *b)
{
    return strcmp(a->host, b->host) == 0 && strcmp(a->mode, b->mode) == 0;
}

bool gar_plot_arm_usable(const gar_arm_summary *a)
{
    return a->runs > a->failed;
}

bool gar_plot_arm_complete(const gar_arm_summary *a)
{
    return a->runs > 0 && a->failed == 0;
}

int gar_plot_refuse_styles(gar_error *err, const char *what)
{
    char cap[16];
    gar_format(cap, sizeof cap, "%d", GAR_PLOT_STYLES);
    return gar_error_set(err, GAR_E_CAPACITY, 2, what, cap);
}

long gar_plot_shown_add(gar_plot_shown *s, const char *plan, unsigned rank)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->plan[i], plan) == 0)
            return (long)i;
    if (s->count == GAR_PLOT_STYLES)
        return -1;
    s->plan[s->count] = plan;
    s->rank[s->count] = rank;
    return (long)s->count++;
}

bool gar_plot_shown_before(const char *a, unsigned rank_a, const char *b, unsigned rank_b)
{
    char fa[256], fb[256];
    gar_plan_family(a, fa, sizeof fa);
    gar_plan_family(b, fb, sizeof fb);
    if (strcmp(fa, fb) == 0)
        return gar_plan_text_order(a, b) < 0;
    return rank_a < rank_b;
}

/* Insertion: a plot shows at most GAR_PLOT_STYLES plans. */
void gar_plot_shown_name(gar_plot_shown *s)
{
    for (size_t i = 1; i < s->count; i++)
        for (size_t j = i; j > 0 && gar_plot_shown_before(s->plan[j], s->rank[j],
                                                          s->plan[j - 1], s->rank[j - 1]);
             j--) {
            const char *p = s->plan[j];
            unsigned r = s->rank[j];
            s->plan[j] = s->plan[j - 1];
            s->rank[j] = s->rank[j - 1];
            s->plan[j - 1] = p;
            s->rank[j - 1] = r;
        }
    for (size_t i = 0; i < s->count; i++)
        gar_plan_name_among(s->plan[i], s->plan, s->count, s->name[i], sizeof s->name[i]);
}

long gar_plot_shown_find(const gar_plot_shown *s, const char *plan)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->plan[i], plan) == 0)
            return (long)i;
    return -1;
}
