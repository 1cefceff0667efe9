/* experiments/report/report_terms.h — the words the report uses, defined
 * before it uses them.
 *
 * The page speaks of arms, estimators such as adl, overshoot, busy CPU, the
 * rule's slack, ties, budgets and the Pareto frontier from its first table
 * on; a reader who meets "adl" or "p99 outside the slack" there should not
 * have to look elsewhere.  So the page opens with a short list of them, in
 * the words of docs/glossary.md, shortened. */
#ifndef GAR_REPORT_TERMS_H
#define GAR_REPORT_TERMS_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report_rank.h"

/* Writes the list (an HTML <dl class="terms">) to `f`: the slack with the
 * figures of `rule`, and the auto section's budget and best fixed arm when
 * `with_auto`.  Write errors are left for the caller's check of `f`. */
void gar_report_terms(FILE *f, const gar_report_rule *rule, bool with_auto);

#endif
