/* experiments/report/plan_names.h — short names for the plans a plot or a
 * table shows together.
 *
 * A plan's text is long ("flag:park_us=100,backstop_us=1000+predict:margin_us=
 * 150,min_sleep_us=20,max_sleep_us=50000,window=8"); its family is short
 * ("flag+predict") but two plans of one family, two margins say, share it.
 * A name therefore is the family followed by the parameters whose values
 * differ among the plans shown with it: "flag+predict margin_us=50" beside
 * "flag+predict margin_us=100", and plain "flag+predict" where it is the only
 * one.  The name depends on what is shown, never on the rest of the
 * database, so a plot's legend needs nothing else to be read.
 *
 * Plans are read as their grammar writes them (gar/plan.h, gar/bands.h:
 * every key, in a fixed order), so equal values are equal texts.  In a plan
 * of several bands a parameter is named with its band's edge, as the family
 * names the band: "|32:margin_us=50". */
#ifndef GAR_PLAN_NAMES_H
#define GAR_PLAN_NAMES_H

#include <stddef.h>

/* The family of `plan`: its parks, each with "+predict" when it has one,
 * bands as "bands block|32:flag+predict"; a text that is no plan is its own
 * family.  Writes at most `size` bytes, NUL included. */
void gar_plan_family(const char *plan, char *out, size_t size);

/* The name of `plan` among the plans shown[0 .. count-1] (`plan` may be
 * among them): its family, then a space and the KEY=VALUE pairs, comma
 * separated, in which it differs from another shown plan of its family. */
void gar_plan_name_among(const char *plan, const char *const *shown, size_t count, char *out,
                         size_t size);

/* Orders two plan texts with their numbers read as numbers, so that
 * margin_us=50 comes before margin_us=100: negative, 0 or positive, as
 * strcmp.  For ordering the plans of one family in a legend. */
int gar_plan_text_order(const char *a, const char *b);

/* An arm's name: the plan's name among `shown`, then " / ESTIMATOR" unless
 * the estimator is "-" (a plan without predict consults none). */
void gar_arm_name_among(const char *plan, const char *estimator, const char *const *shown,
                        size_t count, char *out, size_t size);

#endif
