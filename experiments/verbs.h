/* experiments/verbs.h — the verbs of `gar`, one file each (verb_NAME.c).
 * Each returns the process exit status (see cli.h). */
#ifndef GAR_VERBS_H
#define GAR_VERBS_H

#include "cli.h"

/* The table, in the order `gar --help` lists it; ends with a NULL name. */
extern const gar_verb gar_verbs[];

#endif
