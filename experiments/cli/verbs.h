/* experiments/cli/verbs.h — the verbs of `gar`, one file each (verb_NAME.c).
 * Each verb's main takes argv with argv[0] = the verb's name and returns the
 * process exit status (see cli.h).  Add a verb: its file, its line in
 * experiments/meson.build, its declaration here and its row in gar.c. */
#ifndef GAR_VERBS_H
#define GAR_VERBS_H

#include "cli/cli.h"

/* The table, in the order `gar --help` lists it; ends with a NULL name. */
extern const gar_verb gar_verbs[];

int gar_verb_auto_goals_main(int argc, char **argv);
int gar_verb_calibrate_main(int argc, char **argv);
int gar_verb_estimate_main(int argc, char **argv);
int gar_verb_executor_main(int argc, char **argv);
int gar_verb_fill_demo_main(int argc, char **argv);
int gar_verb_gen_main(int argc, char **argv);
int gar_verb_import_main(int argc, char **argv);
int gar_verb_merge_main(int argc, char **argv);
int gar_verb_plan_main(int argc, char **argv);
int gar_verb_plot_main(int argc, char **argv);
int gar_verb_probe_main(int argc, char **argv);
int gar_verb_replay_main(int argc, char **argv);
int gar_verb_run_main(int argc, char **argv);
int gar_verb_report_main(int argc, char **argv);
int gar_verb_sweep_main(int argc, char **argv);
int gar_verb_verify_main(int argc, char **argv);

#endif
