/* core/scan.c — the scanning cursor shared by gar's small grammars. */
#include "scan.h"

#include <stdarg.h>
#include <string.h>

static bool is_word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_shown_plainly(unsigned char c)
{
    return c > 0x20 && c < 0x7f;
}

gar__scan gar__scan_make(const char *text, size_t len)
{
    gar__scan s;
    s.text = text;
    s.len = len;
    s.pos = 0;
    s.failed = false;
    s.fault[0] = '\0';
    return s;
}

bool gar__scan_looking_at(const gar__scan *s, const char *literal)
{
    size_t n = strlen(literal);
    return s->len - s->pos >= n && memcmp(s->text + s->pos, literal, n) == 0;
}

static unsigned char byte_at(const gar__scan *s, size_t at)
{
    return (unsigned char)s->text[at];
}

/* Puts the bytes [at, at+n) inside quotes, escaped as every message quotes
 * untrusted bytes (gar__text_put_shown). */
static void put_quoted(gar__text_out *out, const gar__scan *s, size_t at, size_t n)
{
    gar__text_puts(out, "'");
    gar__text_put_shown(out, s->text + at, n);
    gar__text_puts(out, "'");
}

void gar__scan_put_found(gar__text_out *out, const gar__scan *s, size_t at)
{
    static const char hex[] = "0123456789abcdef";
    if (at >= s->len) {
        gar__text_puts(out, "the end");
        return;
    }
    unsigned char c = byte_at(s, at);
    if (is_space(c)) {
        gar__text_puts(out, "white space");
    } else if (!is_shown_plainly(c)) {
        char code[5] = { '0', 'x', hex[c >> 4], hex[c & 15], '\0' };
        gar__text_puts(out, "byte ");
        gar__text_puts(out, code);
    } else if (is_word_byte(c)) {
        /* Bytes outside ASCII inside a word are quoted with it: 'fl\xc3\xa9g'
         * is one wrong word at its start, not a right one cut short. */
        size_t end = at;
        while (end < s->len && (is_word_byte(byte_at(s, end)) || byte_at(s, end) >= 0x80))
            end++;
        size_t n = end - at;
        if (n <= GAR__SCAN_SHOWN_BYTES) {
            put_quoted(out, s, at, n);
        } else {
            put_quoted(out, s, at, GAR__SCAN_SHOWN_BYTES);
            gar__text_puts(out, "...");
        }
    } else {
        put_quoted(out, s, at, 1);
    }
}

static bool fail_begin(gar__scan *s, size_t at, gar__text_out *out)
{
    if (s->failed)
        return false;
    s->failed = true;
    *out = gar__text_out_make(s->fault, sizeof s->fault);
    gar__text_puts(out, "at byte ");
    gar__text_put_u64(out, at);
    gar__text_puts(out, ": ");
    return true;
}

bool gar__scan_fail(gar__scan *s, size_t at, ...)
{
    gar__text_out out;
    if (!fail_begin(s, at, &out))
        return false;
    va_list ap;
    va_start(ap, at);
    for (const char *piece = va_arg(ap, const char *); piece != NULL;
         piece = va_arg(ap, const char *))
        gar__text_puts(&out, piece);
    va_end(ap);
    return false;
}

bool gar__scan_fail_found(gar__scan *s, size_t at, const char *expected)
{
    gar__text_out out;
    if (!fail_begin(s, at, &out))
        return false;
    gar__text_puts(&out, expected);
    gar__text_puts(&out, ", found ");
    gar__scan_put_found(&out, s, at);
    return false;
}

bool gar__scan_literal(gar__scan *s, const char *literal)
{
    if (s->failed)
        return false;
    if (gar__scan_looking_at(s, literal)) {
        s->pos += strlen(literal);
        return true;
    }
    gar__text_out out;
    fail_begin(s, s->pos, &out);
    gar__text_puts(&out, "expected '");
    gar__text_puts(&out, literal);
    gar__text_puts(&out, "', found ");
    size_t left = s->len - s->pos;
    size_t n = strlen(literal);
    if (left == 0) {
        gar__text_puts(&out, "the end");
    } else if (left < n) {
        put_quoted(&out, s, s->pos, left);
        gar__text_puts(&out, " and the end");
    } else {
        put_quoted(&out, s, s->pos, n);
    }
    return false;
}

size_t gar__scan_word(gar__scan *s)
{
    size_t start = s->pos;
    while (s->pos < s->len && is_word_byte(byte_at(s, s->pos)))
        s->pos++;
    return s->pos - start;
}

/* Appends what the number at [at, end) says, cut like a quoted word. */
static void put_digits(gar__text_out *out, const gar__scan *s, size_t at, size_t end)
{
    size_t n = end - at;
    gar__text_put(out, s->text + at, n <= GAR__SCAN_SHOWN_BYTES ? n : GAR__SCAN_SHOWN_BYTES);
    if (n > GAR__SCAN_SHOWN_BYTES)
        gar__text_puts(out, "...");
}

bool gar__scan_decimal(gar__scan *s, const char *what, uint64_t min, uint64_t max,
                      const char *min_why, uint64_t *out)
{
    if (s->failed)
        return false;
    size_t at = s->pos;
    if (at == s->len || !is_digit(byte_at(s, at))) {
        gar__text_out text;
        fail_begin(s, at, &text);
        gar__text_puts(&text, "expected a number for ");
        gar__text_puts(&text, what);
        gar__text_puts(&text, ", found ");
        gar__scan_put_found(&text, s, at);
        return false;
    }
    uint64_t value = 0;
    bool overflow = false;
    size_t end = at;
    while (end < s->len && is_digit(byte_at(s, end))) {
        unsigned digit = (unsigned)(byte_at(s, end) - '0');
        if (value > (UINT64_MAX - digit) / 10)
            overflow = true;
        else
            value = value * 10 + digit;
        end++;
    }
    gar__text_out text;
    if (end < s->len && byte_at(s, end) == '.') {
        /* A fraction is named as one ("found 0", from "0.5", would read as
         * a typo): the values are whole units, µs for a "_us" key. */
        size_t fraction_end = end + 1;
        while (fraction_end < s->len && is_digit(byte_at(s, fraction_end)))
            fraction_end++;
        size_t n = strlen(what);
        bool us = n > 3 && strcmp(what + n - 3, "_us") == 0;
        fail_begin(s, at, &text);
        gar__text_puts(&text, what);
        gar__text_puts(&text, us ? " takes whole microseconds from " : " takes a whole number from ");
        gar__text_put_u64(&text, min);
        gar__text_puts(&text, " to ");
        gar__text_put_u64(&text, max);
        gar__text_puts(&text, ", found ");
        put_digits(&text, s, at, fraction_end);
        return false;
    }
    if (byte_at(s, at) == '0' && end - at > 1) {
        fail_begin(s, at, &text);
        gar__text_puts(&text, "expected a number without leading zeros for ");
        gar__text_puts(&text, what);
        gar__text_puts(&text, ", found ");
        put_digits(&text, s, at, end);
        return false;
    }
    if (overflow || value < min || value > max) {
        fail_begin(s, at, &text);
        gar__text_puts(&text, what);
        if (!overflow && value < min && min_why != NULL) {
            gar__text_puts(&text, " must be at least ");
            gar__text_put_u64(&text, min);
            gar__text_puts(&text, " (");
            gar__text_puts(&text, min_why);
            gar__text_puts(&text, ")");
        } else {
            gar__text_puts(&text, " must be ");
            gar__text_put_u64(&text, min);
            gar__text_puts(&text, "..");
            gar__text_put_u64(&text, max);
        }
        gar__text_puts(&text, ", found ");
        put_digits(&text, s, at, end);
        return false;
    }
    s->pos = end;
    *out = value;
    return true;
}

/* The index of the key named by the `n` bytes at `word`, or -1. */
static int key_index(const gar__scan_key *keys, size_t count, const char *word, size_t n)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(keys[i].name) == n && memcmp(keys[i].name, word, n) == 0)
            return (int)i;
    return -1;
}

/* Whether ",NAME=" occurs at or after byte `from`: the key was written, only
 * later than its turn. */
static bool written_later(const gar__scan *s, size_t from, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = from; i + n + 2 <= s->len; i++)
        if (s->text[i] == ',' && memcmp(s->text + i + 1, name, n) == 0 && s->text[i + 1 + n] == '=')
            return true;
    return false;
}

/* Reads key `k` and its '=' at the cursor, naming in a fault which key was
 * expected and how the text differs. */
static bool read_key(gar__scan *s, const gar__scan_key *keys, size_t count, size_t k)
{
    size_t at = s->pos;
    const char *expected = keys[k].name;
    size_t n = gar__scan_word(s);
    int found = key_index(keys, count, s->text + at, n);
    if (found == (int)k) {
        if (gar__scan_looking_at(s, "=")) {
            s->pos++;
            return true;
        }
        gar__text_out out;
        fail_begin(s, s->pos, &out);
        gar__text_puts(&out, "expected '=' after key '");
        gar__text_puts(&out, expected);
        gar__text_puts(&out, "', found ");
        gar__scan_put_found(&out, s, s->pos);
        return false;
    }
    gar__text_out out;
    fail_begin(s, at, &out);
    if (found >= 0 && found < (int)k) {
        gar__text_puts(&out, "duplicate key '");
        gar__text_puts(&out, keys[found].name);
        gar__text_puts(&out, "', expected key '");
        gar__text_puts(&out, expected);
        gar__text_puts(&out, "'");
    } else if (found > (int)k && written_later(s, at, expected)) {
        gar__text_puts(&out, "key '");
        gar__text_puts(&out, keys[found].name);
        gar__text_puts(&out, "' out of order, expected key '");
        gar__text_puts(&out, expected);
        gar__text_puts(&out, "' first");
    } else if (found > (int)k) {
        gar__text_puts(&out, "missing key '");
        gar__text_puts(&out, expected);
        gar__text_puts(&out, "', found key '");
        gar__text_puts(&out, keys[found].name);
        gar__text_puts(&out, "'");
    } else {
        gar__text_puts(&out, "expected key '");
        gar__text_puts(&out, expected);
        gar__text_puts(&out, "', found ");
        gar__scan_put_found(&out, s, at);
    }
    return false;
}

bool gar__scan_keys(gar__scan *s, const gar__scan_key *keys, size_t count, uint64_t *values,
                   size_t *offsets)
{
    for (size_t k = 0; k < count && !s->failed; k++) {
        if (k > 0) {
            if (gar__scan_at_end(s))
                return gar__scan_fail(s, s->pos, "missing key '", keys[k].name,
                                     "', found the end", (const char *)NULL);
            if (!gar__scan_looking_at(s, ",")) {
                gar__text_out out;
                fail_begin(s, s->pos, &out);
                gar__text_puts(&out, "expected ',' before key '");
                gar__text_puts(&out, keys[k].name);
                gar__text_puts(&out, "', found ");
                gar__scan_put_found(&out, s, s->pos);
                return false;
            }
            s->pos++;
        }
        if (!read_key(s, keys, count, k))
            return false;
        uint64_t min = keys[k].min;
        const char *min_why = NULL;
        int floor_key = keys[k].floor_key;
        if (floor_key >= 0 && (size_t)floor_key < k && values[floor_key] > min) {
            min = values[floor_key];
            min_why = keys[floor_key].name;
        }
        if (offsets != NULL)
            offsets[k] = s->pos;
        if (!gar__scan_decimal(s, keys[k].name, min, keys[k].max, min_why, &values[k]))
            return false;
    }
    if (!s->failed && gar__scan_looking_at(s, ",")) {
        size_t at = s->pos + 1;
        gar__scan ahead = *s;
        ahead.pos = at;
        size_t n = gar__scan_word(&ahead);
        int found = key_index(keys, count, s->text + at, n);
        if (found >= 0)
            return gar__scan_fail(s, at, "duplicate key '", keys[found].name, "'",
                                 (const char *)NULL);
    }
    return !s->failed;
}

void gar__scan_copy_text(const char *text, size_t len, char *buf, size_t size)
{
    if (size == 0)
        return;
    gar__text_out out = gar__text_out_make(buf, size);
    gar__text_put_shown(&out, text, len);
}
