/* experiments/import/kineto_callbacks.h — yajl's callbacks over a Kineto
 * trace (kineto_callbacks.c): each event's kept keys gathered into the
 * `kineto` state (kineto_event.h) given as yajl's context, duplicates and
 * unusable values refused, each event finished as it closes.  For
 * experiments/import/import_kineto.c only. */
#ifndef GAR_KINETO_CALLBACKS_H
#define GAR_KINETO_CALLBACKS_H

#include <yajl/yajl_parse.h>

extern const yajl_callbacks gar_kineto_callbacks;

#endif
