/* gar/error_codes.h — the one table of coded errors and warnings.
 *
 * Everything else about a code is made from this table: the enumerators of
 * gar_code (gar/error.h), the names, kinds and message templates that
 * core/error.c formats, and the table of docs/glossary.md (printed by
 * tests/layout/print_error_table.c and compared by the error-table test).
 *
 * A row is X(number, identifier, Name, kind, owner, template, when):
 *   number      the code's identity: rows are in number order from 1 with
 *               no gap (core/error.c asserts it), and a number is never
 *               reused, renumbered or given another meaning.  Append only.
 *   identifier  the enumerator, GAR_E_... for an error, GAR_W_... for a warning.
 *   Name        shown in "error N (Name): ..."; a word, never changed.
 *   kind        ERROR or WARNING.
 *   owner       LIBRARY: a libgar function (core/, backends/) may return it.
 *               TESTBED: only the gar command and its simulator (sim/,
 *               experiments/) report it; no libgar function returns one.
 *   template    the message, a non-empty string literal (a row without one
 *               does not compile): {1}..{4} are the record's arguments, and
 *               a part in brackets ("[: column {3}]", not nested) is shown
 *               only when every argument it names is given and not empty.
 *   when        what the code means, for the glossary: one line, no '|'.
 * The comment above a row names its arguments.
 */
#ifndef GAR_ERROR_CODES_H
#define GAR_ERROR_CODES_H

#define GAR_ERROR_TABLE(X)                                                                    \
    /* subject, text, first fault */                                                          \
    X(1, GAR_E_INVALID_PLAN, InvalidPlan, ERROR, LIBRARY,                                    \
      "invalid {1} '{2}': {3}",                                                               \
      "a plan or bands text that does not parse")                                             \
    /* requested plan, missing capability, why, running plan */                               \
    X(2, GAR_W_PARK_FALLBACK, ParkFallback, WARNING, LIBRARY,                                \
      "plan '{1}' needs {2}, which this host lacks ({3}); running '{4}'",                     \
      "a flag plan runs as poll: the host has no word wait")                                  \
    /* requested executor, why, running executor */                                           \
    X(3, GAR_W_EXECUTOR_FALLBACK, ExecutorFallback, WARNING, LIBRARY,                        \
      "executor '{1}' cannot run here ({2}); running '{3}'",                                  \
      "an executor kind runs as a later one of its chain")                                    \
    /* requested executor, why */                                                             \
    X(4, GAR_E_EXECUTOR_REFUSED, ExecutorRefused, ERROR, LIBRARY,                            \
      "executor '{1}' cannot run here ({2}) and the setting is strict",                       \
      "a strict executor kind cannot run here")                                               \
    /* text, accepted names */                                                                \
    X(5, GAR_E_INVALID_EXECUTOR, InvalidExecutor, ERROR, LIBRARY,                            \
      "unknown executor '{1}' (accepted: {2})",                                               \
      "not an executor kind's name")                                                          \
    /* site */                                                                                \
    X(6, GAR_E_PENDED_INLINE, PendedInline, ERROR, LIBRARY,                                  \
      "an inline host returned pending at {1}",                                               \
      "an inline host answered \"pending\"")                                                  \
    /* tasks left */                                                                          \
    X(7, GAR_E_STALLED, Stalled, ERROR, LIBRARY,                                             \
      "{1} task(s) left unfinished with nothing to wait on",                                  \
      "tasks left with nothing to wait on")                                                   \
    /* what was being done, driver status */                                                  \
    X(8, GAR_E_BACKEND, Backend, ERROR, LIBRARY,                                             \
      "{1} failed: {2}",                                                                      \
      "a vendor driver failed")                                                               \
    /* function, argument, what is wrong */                                                   \
    X(9, GAR_E_INVALID_ARGUMENT, InvalidArgument, ERROR, LIBRARY,                            \
      "{1}: argument {2} {3}",                                                                \
      "a bad argument (a function's, or a sweep spec's)")                                     \
    /* what is full, its capacity */                                                          \
    X(10, GAR_E_CAPACITY, CapacityExceeded, ERROR, LIBRARY,                                  \
      "{1} is full (capacity {2})",                                                           \
      "a table or a metric's range is full")                                                  \
    /* command, what is wrong */                                                              \
    X(11, GAR_E_USAGE, Usage, ERROR, TESTBED,                                                \
      "{1}: {2}",                                                                             \
      "a bad command line")                                                                   \
    /* path, operation, system message */                                                     \
    X(12, GAR_E_IO, Io, ERROR, TESTBED,                                                      \
      "cannot {2} '{1}': {3}",                                                                \
      "a file that cannot be opened, read or written")                                        \
    /* file, line, column, fault */                                                           \
    X(13, GAR_E_INVALID_TRACE, InvalidTrace, ERROR, TESTBED,                                 \
      "{1}[:{2}][: column {3}]: {4}",                                                         \
      "a trace breaking a rule, with its line and column")                                    \
    /* text, first fault */                                                                   \
    X(14, GAR_E_INVALID_ESTIMATOR, InvalidEstimator, ERROR, LIBRARY,                         \
      "invalid estimator '{1}': {2}",                                                         \
      "an estimator text that does not parse")                                                \
    /* file, line, fault */                                                                   \
    X(15, GAR_E_INVALID_HOST_PROFILE, InvalidHostProfile, ERROR, LIBRARY,                    \
      "{1}:{2}: {3}",                                                                         \
      "a host profile breaking a rule, with its line")                                        \
    /* what was awaited, deadline */                                                          \
    X(16, GAR_E_WAIT_DEADLINE, WaitDeadline, ERROR, LIBRARY,                                 \
      "{1} still pending at its deadline of {2}",                                             \
      "a wait still pending at its deadline")                                                 \
    /* what failed on the device */                                                           \
    X(17, GAR_E_DEVICE_FAULT, DeviceFault, ERROR, LIBRARY,                                   \
      "device fault: {1}",                                                                    \
      "the device failed the work")                                                           \
    /* what was measured, the rounds' values, the bound */                                    \
    X(18, GAR_W_NOISY_CALIBRATION, NoisyCalibration, WARNING, TESTBED,                       \
      "calibration rounds disagree on {1}: {2} (bound: {3}); "                                \
      "measure again on a quiet machine",                                                     \
      "a calibration's rounds disagree")                                                      \
    /* the auto plan, the waits over budget, all waits */                                     \
    X(19, GAR_W_AUTO_OVER_BUDGET, AutoOverBudget, WARNING, LIBRARY,                          \
      "'{1}' is beyond this host: every park's own tail exceeds "                             \
      "the budget on 1 % of waits or more ({2} of {3} waits), so "                            \
      "those ran the park that exceeds it least, with a cautious "                            \
      "sleep",                                                                                \
      "no park can meet an auto budget on this host")                                         \
    /* function, ops table type, its version, the newest known */                             \
    X(20, GAR_E_OPS_VERSION, OpsVersion, ERROR, LIBRARY,                                     \
      "{1}: the {2} table has version {3}, which this libgar does not "                       \
      "know (the newest it knows is {4})",                                                    \
      "an ops table (port, idle, mapped) whose version this library does not know")           \
    /* the auto plan, its p99, the budget, how sure */                                        \
    X(21, GAR_W_AUTO_MISSED_BUDGET, AutoMissedBudget, WARNING, TESTBED,                      \
      "'{1}' missed its budget: the run's p99 overshoot, {2}, is "                            \
      "above {3}[ ({4})]",                                                                    \
      "a replay of an auto plan whose p99 overshoot came out above its budget")               \
    /* what was asked (the verb), the database */                                             \
    X(22, GAR_E_EMPTY_DATABASE, EmptyDatabase, ERROR, TESTBED,                               \
      "{1}: the database '{2}' holds no runs; run gar sweep SPEC --db '{2}' first",           \
      "a sweep database with no runs where runs are read (report, plot, auto-goals)")

#endif
