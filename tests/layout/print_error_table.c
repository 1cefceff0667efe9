/* tests/layout/print_error_table.c — prints what gar/error_codes.h says.
 *
 *   print_error_table            the glossary's table of codes, in Markdown,
 *                                between blank lines (docs/glossary.md holds it
 *                                between markers)
 *   print_error_table testbed    the enumerators of the testbed codes, a line each
 *
 * Exits 1, saying why on stderr, when a row's glossary text would break
 * the Markdown table (a '|' or a line break in it); 2 for other arguments. */
#include <stdio.h>
#include <string.h>

#include <gar/error.h>

static const char *const kind_word_ERROR = "error";
static const char *const kind_word_WARNING = "warning";
static const char *const owner_word_LIBRARY = "library";
static const char *const owner_word_TESTBED = "testbed";

/* True when `text` fits one cell of a Markdown table. */
static int fits_a_cell(int number, const char *text)
{
    if (strpbrk(text, "|\n\r") == NULL)
        return 1;
    fprintf(stderr, "print_error_table: code %d: its glossary line holds '|' or a line break\n",
            number);
    return 0;
}

#define PRINT_ROW(number, identifier, name, kind, owner, template_text, when)                 \
    ok &= fits_a_cell(number, when);                                                          \
    printf("| %d | %s | %s | %s | %s |\n", number, #name, kind_word_##kind, owner_word_##owner, \
           when);

#define PRINT_TESTBED(number, identifier, name, kind, owner, template_text, when)             \
    if (strcmp(owner_word_##owner, "testbed") == 0)                                           \
        printf("%s\n", #identifier);

int main(int argc, char **argv)
{
    int ok = 1;
    if (argc == 1) {
        printf("\n| # | name | kind | owner | when |\n"); /* blank lines: a table of its own */
        printf("|---|---|---|---|---|\n");
        GAR_ERROR_TABLE(PRINT_ROW)
        printf("\n");
    } else if (argc == 2 && strcmp(argv[1], "testbed") == 0) {
        GAR_ERROR_TABLE(PRINT_TESTBED)
    } else {
        fprintf(stderr, "usage: print_error_table [testbed]\n");
        return 2;
    }
    return ok ? 0 : 1;
}
