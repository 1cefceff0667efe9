/* experiments/verb_merge.c — `gar merge OUT.db IN.db...`: join the databases
 * of a sweep's shards into one. */
#include <getopt.h>

#include "cli.h"
#include "store.h"
#include "verbs.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gar merge OUT.db IN.db...\n"
            "\n"
            "Copies every run, trace and host of the sweep databases IN.db into OUT.db\n"
            "(created if missing).  A run already in OUT.db is kept once; one there with\n"
            "other results refuses that input.  An input of another schema version is\n"
            "refused, naming the file and both versions.  Each input is merged in one\n"
            "transaction: all of it or none.\n"
            "\n"
            "options:\n"
            "  --help   this text\n"
            "\n"
            "example:\n"
            "  gar merge results/sweep.db results/shard-*.db\n");
}

int gar_verb_merge_main(int argc, char **argv)
{
    static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    optind = 1;
    int c;
    opterr = 0; /* a bad option is reported as a coded usage error */
    while ((c = gar_cli_getopt(argc, argv, ":", options, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return GAR_EXIT_OK;
        }
        return gar_cli_bad_option("merge", c, argv);
    }
    if (argc - optind < 2)
        return gar_cli_usage_error("merge", "give the output database and at least one input");
    gar_error err;
    gar_store *out = NULL;
    if (gar_store_open(argv[optind], true, &out, &err) < 0)
        return gar_cli_refuse(&err);
    printf("out: %s\n", argv[optind]);
    unsigned long long added = 0, present = 0;
    for (int i = optind + 1; i < argc; i++) {
        gar_store_merge_stats st;
        if (gar_store_merge(out, argv[i], &st, &err) < 0) {
            gar_store_close(out);
            return gar_cli_refuse(&err);
        }
        printf("in: %s (%llu runs, %llu added, %llu already present)\n", argv[i],
               (unsigned long long)st.runs, (unsigned long long)st.added,
               (unsigned long long)st.present);
        added += st.added;
        present += st.present;
    }
    gar_store_close(out);
    printf("added: %llu\n", added);
    printf("present: %llu\n", present);
    return GAR_EXIT_OK;
}
