/* tests/fuzz/driver.c — a deterministic stand-in for libFuzzer's main, so
 * every fuzz target runs as an ordinary test on any compiler.
 *
 *   fuzz_NAME_driver [-dict=FILE] [-runs=N] [-seed=N] [CORPUS_DIR...]
 *
 * The options are libFuzzer's, so one command line serves both.  Runs the
 * target (LLVMFuzzerTestOneInput, linked in) on every file of each
 * CORPUS_DIR in name order, then on N inputs (-runs=, else GAR_FUZZ_RUNS,
 * else 300000, fewer under a sanitizer) made from a fixed seed (-seed=, else GAR_FUZZ_SEED, else 1):
 * random bytes, strings of dictionary tokens, and corpus inputs mutated by
 * bit flips, byte changes, insertions, deletions, token insertions and
 * splices.  The dictionary is a libFuzzer/AFL dictionary file (lines
 * `name="token"`, with \\, \" and \xNN escapes; '#' starts a comment).
 *
 * Each input is handed over in a buffer of exactly its size, so a read past
 * the end is caught by AddressSanitizer.  A target reports a broken
 * property by aborting; the driver then prints the run and the input (run
 * it again with the same seed to reproduce) and dies of the same signal.
 * Exit status 0 when every input passed; 2 for a bad command line, corpus
 * or dictionary. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "core/splitmix64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_MAX 4096        /* bytes of a corpus file used; longer files are cut */
#define GENERATED_MAX 512     /* bytes of a generated input */
#define TOKENS_MAX 256
#define TOKEN_BYTES 64
/* About a second of inputs in a plain build; a sanitizer checks every
 * access, so its builds run fewer in about the same time. */
#if defined(__SANITIZE_THREAD__)
#define SANITIZER_SLOWDOWN 10
#elif defined(__SANITIZE_ADDRESS__)
#define SANITIZER_SLOWDOWN 3
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SANITIZER_SLOWDOWN 10
#elif __has_feature(address_sanitizer)
#define SANITIZER_SLOWDOWN 3
#endif
#endif
#ifndef SANITIZER_SLOWDOWN
#define SANITIZER_SLOWDOWN 1
#endif
#define DEFAULT_RUNS (300000UL / SANITIZER_SLOWDOWN)
#define DEFAULT_SEED 1ULL

typedef struct bytes {
    size_t len;
    uint8_t data[INPUT_MAX];
} bytes;

typedef struct pool {
    size_t count;
    bytes *items;
} pool;

typedef struct dictionary {
    size_t count;
    size_t len[TOKENS_MAX];
    uint8_t token[TOKENS_MAX][TOKEN_BYTES];
} dictionary;

/* What the crash handler shows: the input being run.  Written before each
 * run; read only by the handler. */
static const uint8_t *current_data;
static size_t current_size;
static unsigned long current_run;
static unsigned long long current_seed;
static const char *current_origin = "corpus";

static void write_all(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void write_text(const char *s)
{
    write_all(s, strlen(s));
}

static void write_number(unsigned long long value)
{
    char digits[24];
    size_t n = sizeof digits;
    do {
        digits[--n] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    write_all(digits + n, sizeof digits - n);
}

/* Prints the failing input as a C string literal; async-signal-safe. */
static void on_fatal_signal(int sig)
{
    static const char hex[] = "0123456789abcdef";
    write_text("\nfuzz: input failed (");
    write_text(current_origin);
    write_text(" run ");
    write_number(current_run);
    write_text(", ");
    write_number((unsigned long)current_size);
    write_text(" bytes): \"");
    for (size_t i = 0; i < current_size; i++) {
        uint8_t c = current_data[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            char plain = (char)c;
            write_all(&plain, 1);
        } else {
            char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
            write_all(esc, 4);
        }
    }
    write_text("\"\n");
    if (strcmp(current_origin, "generated") == 0) {
        write_text("fuzz: to reproduce, run again with GAR_FUZZ_SEED=");
        write_number(current_seed);
        write_text(" GAR_FUZZ_RUNS=");
        write_number(current_run + 1);
        write_text("\n");
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Runs the target on a private copy of exactly `size` bytes. */
static void run_one(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) {
        fprintf(stderr, "fuzz: out of memory\n");
        exit(2);
    }
    if (size > 0)
        memcpy(copy, data, size);
    current_data = copy;
    current_size = size;
    LLVMFuzzerTestOneInput(copy, size);
    current_data = NULL;
    current_size = 0;
    free(copy);
}

/* Mutations are spread by splitmix64: small, fast and the same everywhere. */
static size_t rng_below(uint64_t *state, size_t bound)
{
    return bound == 0 ? 0 : (size_t)(gar_splitmix64(state) % bound);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int load_corpus(const char *dir, pool *corpus)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "fuzz: cannot read corpus folder '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    bytes *items = realloc(corpus->items, (corpus->count + (size_t)n + 1) * sizeof *items);
    if (items == NULL) {
        fprintf(stderr, "fuzz: out of memory\n");
        return -1;
    }
    corpus->items = items;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            FILE *f = fopen(path, "rb");
            if (f == NULL) {
                fprintf(stderr, "fuzz: cannot open '%s': %s\n", path, strerror(errno));
                return -1;
            }
            bytes *b = &corpus->items[corpus->count++];
            b->len = fread(b->data, 1, sizeof b->data, f);
            fclose(f);
        }
        free(names[i]);
    }
    free(names);
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads one `name="token"` line into the dictionary.  Returns 0, or -1 for
 * a line that is not one. */
static int read_token(const char *line, dictionary *dict)
{
    const char *p = strchr(line, '"');
    const char *end = strrchr(line, '"');
    if (p == NULL || end == p)
        return -1;
    if (dict->count == TOKENS_MAX)
        return 0;
    size_t n = 0;
    uint8_t *out = dict->token[dict->count];
    for (p++; p < end && n < TOKEN_BYTES; p++) {
        if (*p != '\\') {
            out[n++] = (uint8_t)*p;
        } else if (p[1] == 'x' && hex_value(p[2]) >= 0 && hex_value(p[3]) >= 0) {
            out[n++] = (uint8_t)(hex_value(p[2]) * 16 + hex_value(p[3]));
            p += 3;
        } else if (p[1] == '\\' || p[1] == '"') {
            out[n++] = (uint8_t)p[1];
            p++;
        } else {
            return -1;
        }
    }
    dict->len[dict->count++] = n;
    return 0;
}

static int load_dictionary(const char *path, dictionary *dict)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "fuzz: cannot open dictionary '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    unsigned number = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        number++;
        const char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        if (read_token(p, dict) != 0) {
            fprintf(stderr, "fuzz: %s:%u: not a dictionary line (name=\"token\")\n", path, number);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

/* Appends up to `n` bytes at the end of `b`, as far as GENERATED_MAX allows. */
static void append(bytes *b, const uint8_t *data, size_t n)
{
    size_t room = GENERATED_MAX - b->len;
    size_t take = n < room ? n : room;
    memcpy(b->data + b->len, data, take);
    b->len += take;
}

/* Inserts `n` bytes at `at`, dropping what no longer fits. */
static void insert(bytes *b, size_t at, const uint8_t *data, size_t n)
{
    if (n > GENERATED_MAX - at)
        n = GENERATED_MAX - at;
    size_t tail = b->len - at;
    if (tail > GENERATED_MAX - at - n)
        tail = GENERATED_MAX - at - n;
    memmove(b->data + at + n, b->data + at, tail);
    memcpy(b->data + at, data, n);
    b->len = at + n + tail;
}

static const uint8_t alphabet[] = "abcdefgiklmnoprstuwx_0123456789:+,=;>";

static uint8_t random_byte(uint64_t *rng)
{
    return rng_below(rng, 2) ? alphabet[rng_below(rng, sizeof alphabet - 1)]
                             : (uint8_t)gar_splitmix64(rng);
}

static void random_token(uint64_t *rng, const dictionary *dict, const uint8_t **data, size_t *n)
{
    static uint8_t digits[20];
    if (dict->count == 0 || rng_below(rng, 4) == 0) {
        size_t len = 1 + rng_below(rng, sizeof digits);
        for (size_t i = 0; i < len; i++)
            digits[i] = (uint8_t)('0' + rng_below(rng, 10));
        *data = digits;
        *n = len;
        return;
    }
    size_t k = rng_below(rng, dict->count);
    *data = dict->token[k];
    *n = dict->len[k];
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

/* Replaces the first run of digits at or after a random byte with a random
 * number, usually of a plausible size: texts with numbers in them stay
 * well-formed more often than with blind byte changes. */
static void change_number(bytes *b, uint64_t *rng)
{
    size_t at = rng_below(rng, b->len + 1);
    while (at < b->len && !is_digit(b->data[at]))
        at++;
    if (at == b->len)
        return;
    size_t end = at;
    while (end < b->len && is_digit(b->data[end]))
        end++;
    uint8_t digits[20];
    size_t n = 1 + rng_below(rng, rng_below(rng, 4) == 0 ? sizeof digits : 8);
    for (size_t i = 0; i < n; i++)
        digits[i] = (uint8_t)('0' + rng_below(rng, 10));
    if (n > 1 && digits[0] == '0' && rng_below(rng, 8) != 0)
        digits[0] = '1';
    bytes tail;
    size_t keep = b->len - end;
    memcpy(tail.data, b->data + end, keep);
    b->len = at;
    append(b, digits, n);
    append(b, tail.data, keep);
}

static void mutate(bytes *b, uint64_t *rng, const dictionary *dict, const pool *corpus)
{
    const uint8_t *token;
    size_t n;
    switch (rng_below(rng, 10)) {
    case 0: /* flip a bit */
        if (b->len > 0)
            b->data[rng_below(rng, b->len)] ^= (uint8_t)(1u << rng_below(rng, 8));
        break;
    case 1: /* change a byte */
        if (b->len > 0)
            b->data[rng_below(rng, b->len)] = random_byte(rng);
        break;
    case 2: { /* insert a byte */
        uint8_t c = random_byte(rng);
        insert(b, rng_below(rng, b->len + 1), &c, 1);
        break;
    }
    case 3: { /* delete a run */
        if (b->len == 0)
            break;
        size_t at = rng_below(rng, b->len);
        size_t len = 1 + rng_below(rng, b->len - at < 8 ? b->len - at : 8);
        memmove(b->data + at, b->data + at + len, b->len - at - len);
        b->len -= len;
        break;
    }
    case 4: /* insert a token */
        random_token(rng, dict, &token, &n);
        insert(b, rng_below(rng, b->len + 1), token, n);
        break;
    case 5: { /* overwrite with a token */
        random_token(rng, dict, &token, &n);
        size_t at = rng_below(rng, b->len + 1);
        size_t keep = at + n < b->len ? b->len - at - n : 0;
        bytes tail;
        memcpy(tail.data, b->data + b->len - keep, keep);
        b->len = at;
        append(b, token, n);
        append(b, tail.data, keep);
        break;
    }
    case 6: { /* splice: this input's head, another's tail */
        if (corpus->count == 0)
            break;
        const bytes *other = &corpus->items[rng_below(rng, corpus->count)];
        size_t from = rng_below(rng, other->len + 1);
        b->len = rng_below(rng, b->len + 1);
        append(b, other->data + from, other->len - from);
        break;
    }
    case 7: /* cut the end */
        b->len = rng_below(rng, b->len + 1);
        break;
    default:
        change_number(b, rng);
        break;
    }
}

/* Makes the next generated input from the generator's state. */
static void generate(bytes *b, uint64_t *rng, const dictionary *dict, const pool *corpus)
{
    b->len = 0;
    size_t kind = rng_below(rng, 8);
    if (kind == 0) { /* random bytes */
        size_t len = rng_below(rng, 40);
        for (size_t i = 0; i < len; i++) {
            uint8_t c = random_byte(rng);
            append(b, &c, 1);
        }
    } else if (kind == 1 || corpus->count == 0) { /* a string of tokens */
        size_t count = 1 + rng_below(rng, 12);
        for (size_t i = 0; i < count; i++) {
            const uint8_t *token;
            size_t n;
            random_token(rng, dict, &token, &n);
            append(b, token, n);
        }
    } else { /* a mutated corpus input */
        const bytes *seed = &corpus->items[rng_below(rng, corpus->count)];
        b->len = 0;
        append(b, seed->data, seed->len);
        /* Mostly one change: near-misses of good inputs find the edges. */
        size_t mutations = 1 + rng_below(rng, 1 + rng_below(rng, 4));
        for (size_t i = 0; i < mutations; i++)
            mutate(b, rng, dict, corpus);
    }
}

static unsigned long long number_option(const char *option, const char *text)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0' || *text == '-') {
        fprintf(stderr, "fuzz: %s%s is not a number\n", option, text);
        exit(2);
    }
    return value;
}

static const char *after(const char *arg, const char *option)
{
    size_t n = strlen(option);
    return strncmp(arg, option, n) == 0 ? arg + n : NULL;
}

/* Keeps the freed heap top instead of giving it back after every input.
 * A target that allocates a few tens of KiB per input (the trace reader's
 * 64 KiB block) otherwise makes glibc shrink and regrow the heap with brk
 * on each run: a syscall and fresh zeroed pages per input, several times
 * the parsing itself (fuzz_trace_csv: 9 s of CPU, three quarters of it in
 * the kernel, for its 300 000 inputs; 0.7 s with the top kept).  Which
 * inputs run, and what is checked on each, is unchanged. */
static void keep_heap_top(void)
{
#ifdef __GLIBC__
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 16 << 20);
#endif
}

int main(int argc, char **argv)
{
    keep_heap_top();
    signal(SIGABRT, on_fatal_signal);
    signal(SIGSEGV, on_fatal_signal);
    signal(SIGBUS, on_fatal_signal);
    signal(SIGFPE, on_fatal_signal);
    signal(SIGILL, on_fatal_signal);

    const char *runs_env = getenv("GAR_FUZZ_RUNS");
    const char *seed_env = getenv("GAR_FUZZ_SEED");
    unsigned long long runs = runs_env != NULL && *runs_env != '\0'
                                  ? number_option("GAR_FUZZ_RUNS=", runs_env)
                                  : DEFAULT_RUNS;
    unsigned long long seed = seed_env != NULL && *seed_env != '\0'
                                  ? number_option("GAR_FUZZ_SEED=", seed_env)
                                  : DEFAULT_SEED;
    pool corpus = { 0, NULL };
    static dictionary dict;
    for (int i = 1; i < argc; i++) {
        const char *value;
        if ((value = after(argv[i], "-dict=")) != NULL) {
            if (load_dictionary(value, &dict) != 0)
                return 2;
        } else if ((value = after(argv[i], "-runs=")) != NULL) {
            runs = number_option("-runs=", value);
        } else if ((value = after(argv[i], "-seed=")) != NULL) {
            seed = number_option("-seed=", value);
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [-dict=FILE] [-runs=N] [-seed=N] [CORPUS_DIR...]\n",
                    argv[0]);
            return 2;
        } else if (load_corpus(argv[i], &corpus) != 0) {
            return 2;
        }
    }

    for (size_t i = 0; i < corpus.count; i++) {
        current_run = (unsigned long)i;
        run_one(corpus.items[i].data, corpus.items[i].len);
    }

    current_origin = "generated";
    current_seed = seed;
    uint64_t rng = seed;
    static bytes input;
    for (unsigned long long run = 0; run < runs; run++) {
        current_run = (unsigned long)run;
        generate(&input, &rng, &dict, &corpus);
        run_one(input.data, input.len);
    }
    printf("%s: %zu corpus inputs, %llu generated (seed %llu, %zu tokens): all passed\n", argv[0],
           corpus.count, runs, seed, dict.count);
    free(corpus.items);
    return 0;
}
