/* experiments/report/report_terms.c — the words the report uses, defined first. */
#include "report/report_terms.h"

#include "sweep/number_text.h"

static void term(FILE *f, const char *name, const char *words)
{
    fprintf(f, "<dt>%s</dt><dd>%s</dd>\n", name, words);
}

/* The slack in words with this rule's figures: what "p99 outside the
 * slack" in a table's standing means. */
static void slack_term(FILE *f, const gar_report_rule *rule)
{
    char pct[32], us[32];
    gar_number_text(rule->pct, 3, pct, sizeof pct);
    gar_number_text(rule->us, 3, us, sizeof us);
    fprintf(f, "<dt id=\"slack\">slack, p99 outside the slack</dt><dd>");
    if (rule->kind == GAR_RULE_BUSY_WITHIN)
        fprintf(f, "Under this rule an arm is eligible when its p99 overshoot is within the "
                   "slack of the best arm's: the larger of %s %% of the best p99 and %s µs "
                   "above it. An arm whose p99 is further above is <i>outside the slack</i>: "
                   "it is listed after the eligible arms, by p99.",
                pct, us);
    else
        fprintf(f, "The room above the best p99 that the rule <code>busy-within</code> "
                   "allows (by default the larger of 10 %% and 2 µs); this report's rule "
                   "uses none.");
    fprintf(f, "</dd>\n");
}

void gar_report_terms(FILE *f, const gar_report_rule *rule, bool with_auto)
{
    fprintf(f, "<details open><summary><b>Terms</b> (docs/glossary.md has them in "
               "full)</summary>\n<dl class=\"terms\">\n");
    term(f, "arm", "A plan with the estimator that feeds its predict, written "
                   "<code>plan / estimator</code>; <code>/ -</code> (or no estimator) marks "
                   "a plan without predict, which consults none.");
    term(f, "plan", "How a wait waits: <code>block</code> (the vendor's blocking wait), "
                    "<code>poll</code> (status queries in a loop), <code>flag</code> (parks on "
                    "the completion word, with a status query at least every backstop); "
                    "<code>+predict</code> first sleeps until the predicted completion less "
                    "a margin; <code>bands</code> runs a plan per step size.");
    term(f, "estimator", "What predicts the rest of a wait for <code>+predict</code>. "
                         "<code>adl</code> (the default): the least of the point's recent "
                         "samples, lowered geometrically after a late wake; "
                         "<code>half-min</code>, <code>half-mean</code>: half the least or the "
                         "mean sample; <code>ewma</code>: a weighted mean; "
                         "<code>quantile</code>: a low quantile of recent samples; "
                         "<code>none</code> never predicts; <code>oracle</code> knows each "
                         "wait's true rest, so it is a bound, never ranked.");
    term(f, "overshoot, p50, p90, p99", "How much later than possible a wait learnt of its "
                                        "completion (wait end less the later of completion "
                                        "and wait start); p99 is the overshoot 99 % of a "
                                        "run's waits stay within.");
    term(f, "busy CPU", "The share of waiting time the core was busy (spinning, polling, "
                        "querying); asleep or in a blocking wait it is free.");
    slack_term(f, rule);
    term(f, "seeds, 95 %", "Each figure is the mean over an arm's seeds; beneath it the "
                           "least and the greatest seed's, and the 95 % interval of the "
                           "quantile where the runs stored one.");
    term(f, "tied, within noise", "Two arms are told apart only when their intervals do not "
                                  "overlap; the arms the leader cannot be told from are "
                                  "tied, and a tied winner is named with what broke the "
                                  "tie.");
    term(f, "Pareto frontier", "In the busy-against-p99 plots, the arms no other arm beats on "
                               "both; arms drawn on one point are ringed, tagged and listed "
                               "under the plot.");
    if (with_auto)
        term(f, "auto, budget B, best fixed arm",
             "<code>auto:p99_us=B</code> chooses each wait's sleep and park to keep the p99 "
             "overshoot within B µs at the least busy CPU; the best fixed arm is the least busy "
             "fixed arm whose p99 is within B, known only after the sweep.");
    fprintf(f, "</dl></details>\n");
}
