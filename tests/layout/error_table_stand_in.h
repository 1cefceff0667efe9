/* tests/layout/error_table_stand_in.h — a two-row table that takes the
 * place of gar/error_codes.h (its include guard is defined here) when
 * check_error_table_compile.sh compiles core/error.c with it.  Its second
 * row is well formed with ROW_TWO_GIVEN, and otherwise broken the way the
 * macro given names: ROW_TWO_WITHOUT_TEMPLATE, ROW_TWO_EMPTY_TEMPLATE,
 * ROW_TWO_NULL_TEMPLATE, ROW_TWO_NUMBERED_THREE. */
#ifndef GAR_ERROR_CODES_H
#define GAR_ERROR_CODES_H

#if defined(ROW_TWO_GIVEN)
#define STAND_IN_ROW_TWO(X) X(2, GAR_W_SECOND, Second, WARNING, TESTBED, "second {1}", "the second")
#elif defined(ROW_TWO_WITHOUT_TEMPLATE)
#define STAND_IN_ROW_TWO(X) X(2, GAR_W_SECOND, Second, WARNING, TESTBED, "the second")
#elif defined(ROW_TWO_EMPTY_TEMPLATE)
#define STAND_IN_ROW_TWO(X) X(2, GAR_W_SECOND, Second, WARNING, TESTBED, "", "the second")
#elif defined(ROW_TWO_NULL_TEMPLATE)
#define STAND_IN_ROW_TWO(X) X(2, GAR_W_SECOND, Second, WARNING, TESTBED, NULL, "the second")
#elif defined(ROW_TWO_NUMBERED_THREE)
#define STAND_IN_ROW_TWO(X) X(3, GAR_W_SECOND, Second, WARNING, TESTBED, "second {1}", "the second")
#else
#error "name the second row's shape: -DROW_TWO_GIVEN, -DROW_TWO_WITHOUT_TEMPLATE, ..."
#endif

#define GAR_ERROR_TABLE(X)                                                  \
    X(1, GAR_E_FIRST, First, ERROR, LIBRARY, "first {1}", "the first")     \
    STAND_IN_ROW_TWO(X)

#endif
