/* tests/backends/test_word_wait.c — the word wait's decision, from CPUID
 * words and hwcaps given as numbers, and the probe's agreement with this CPU.
 *
 * Nothing here runs a wait instruction: the decisions are pure, and the
 * probe is checked only for what it says.  The instruction path is
 * test_word_wait_park's, which runs where the probe offers a word wait. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/idle.h>
#include <gar/word_wait.h>

#include "word_wait_decide.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

static const char *const x86_refusal =
    "CPU lacks WAITPKG (CPUID.7.0:ECX[5]) and MONITORX (CPUID.80000001h:ECX[29])";

/* An Intel-like CPU: leaf 7 and the extended leaves present, the bits under
 * test clear, every other bit of those words set (so a wrong mask shows). */
static gar_x86_cpuid plain_x86(void)
{
    return (gar_x86_cpuid){
        .max_leaf = 0x1f,
        .leaf7_ecx = ~GAR_X86_LEAF7_ECX_WAITPKG,
        .max_ext_leaf = 0x80000008u,
        .ext1_ecx = ~GAR_X86_EXT1_ECX_MONITORX,
    };
}

static void x86_waitpkg_gives_umwait(void **state)
{
    (void)state;
    gar_x86_cpuid cpuid = plain_x86();
    cpuid.leaf7_ecx |= GAR_X86_LEAF7_ECX_WAITPKG;
    gar_word_wait_choice choice = gar_word_wait_decide_x86(&cpuid);
    assert_int_equal(choice.kind, GAR_WORD_WAIT_UMWAIT);
    assert_null(choice.why);

    /* Both (no such CPU today): umwait, whose deadline is absolute. */
    cpuid.ext1_ecx |= GAR_X86_EXT1_ECX_MONITORX;
    assert_int_equal(gar_word_wait_decide_x86(&cpuid).kind, GAR_WORD_WAIT_UMWAIT);
}

static void x86_monitorx_gives_mwaitx(void **state)
{
    (void)state;
    gar_x86_cpuid cpuid = plain_x86();
    cpuid.ext1_ecx |= GAR_X86_EXT1_ECX_MONITORX;
    gar_word_wait_choice choice = gar_word_wait_decide_x86(&cpuid);
    assert_int_equal(choice.kind, GAR_WORD_WAIT_MWAITX);
    assert_null(choice.why);
}

static void x86_without_either_is_refused_with_the_bits_named(void **state)
{
    (void)state;
    gar_x86_cpuid cpuid = plain_x86();
    gar_word_wait_choice choice = gar_word_wait_decide_x86(&cpuid);
    assert_int_equal(choice.kind, GAR_WORD_WAIT_NONE);
    assert_string_equal(choice.why, x86_refusal);

    /* This machine's own words (a VM): leaf 7 ECX 0x1a415f46, 80000001h ECX
     * 0x121 — WAITPKG and MONITORX both clear. */
    cpuid = (gar_x86_cpuid){ .max_leaf = 0x1c, .leaf7_ecx = 0x1a415f46u,
                             .max_ext_leaf = 0x80000021u, .ext1_ecx = 0x121u };
    assert_int_equal(gar_word_wait_decide_x86(&cpuid).kind, GAR_WORD_WAIT_NONE);

    assert_int_equal(gar_word_wait_decide_x86(NULL).kind, GAR_WORD_WAIT_NONE);
    assert_non_null(gar_word_wait_decide_x86(NULL).why);
}

static void x86_bits_count_only_in_leaves_the_cpu_has(void **state)
{
    (void)state;
    /* A set bit in a leaf beyond the CPU's maximum is not the CPU's word. */
    gar_x86_cpuid cpuid = { .max_leaf = 6, .leaf7_ecx = GAR_X86_LEAF7_ECX_WAITPKG,
                            .max_ext_leaf = 0x80000000u, .ext1_ecx = GAR_X86_EXT1_ECX_MONITORX };
    gar_word_wait_choice choice = gar_word_wait_decide_x86(&cpuid);
    assert_int_equal(choice.kind, GAR_WORD_WAIT_NONE);
    assert_string_equal(choice.why, x86_refusal);

    cpuid.max_leaf = 7;
    assert_int_equal(gar_word_wait_decide_x86(&cpuid).kind, GAR_WORD_WAIT_UMWAIT);
    cpuid.max_leaf = 6;
    cpuid.max_ext_leaf = 0x80000001u;
    assert_int_equal(gar_word_wait_decide_x86(&cpuid).kind, GAR_WORD_WAIT_MWAITX);
}

static void arm64_wfxt_gives_wfet_and_the_event_stream_wfe(void **state)
{
    (void)state;
    const uint64_t others = ~(GAR_ARM64_HWCAP_EVTSTRM | GAR_ARM64_HWCAP2_WFXT);
    gar_arm64_hwcaps hwcaps = { .hwcap = others | GAR_ARM64_HWCAP_EVTSTRM,
                                .hwcap2 = others | GAR_ARM64_HWCAP2_WFXT };
    gar_word_wait_choice choice = gar_word_wait_decide_arm64(&hwcaps);
    assert_int_equal(choice.kind, GAR_WORD_WAIT_WFET);
    assert_null(choice.why);

    hwcaps.hwcap = others; /* WFxT needs no event stream */
    assert_int_equal(gar_word_wait_decide_arm64(&hwcaps).kind, GAR_WORD_WAIT_WFET);

    hwcaps = (gar_arm64_hwcaps){ .hwcap = others | GAR_ARM64_HWCAP_EVTSTRM, .hwcap2 = others };
    choice = gar_word_wait_decide_arm64(&hwcaps);
    assert_int_equal(choice.kind, GAR_WORD_WAIT_WFE);
    assert_null(choice.why);
}

static void arm64_without_a_bound_is_refused(void **state)
{
    (void)state;
    /* The bits are read from the right word: WFXT's bit in AT_HWCAP and
     * EVTSTRM's in AT_HWCAP2 mean neither. */
    gar_arm64_hwcaps hwcaps = { .hwcap = GAR_ARM64_HWCAP2_WFXT, .hwcap2 = GAR_ARM64_HWCAP_EVTSTRM };
    gar_word_wait_choice choice = gar_word_wait_decide_arm64(&hwcaps);
    assert_int_equal(choice.kind, GAR_WORD_WAIT_NONE);
    assert_string_equal(choice.why, "CPU lacks WFxT (HWCAP2_WFXT) and the kernel runs no event "
                                    "stream (HWCAP_EVTSTRM) to bound a plain wfe");
    assert_int_equal(gar_word_wait_decide_arm64(NULL).kind, GAR_WORD_WAIT_NONE);
}

static void the_tsc_rate_comes_from_leaf_15h_only_when_it_enumerates(void **state)
{
    (void)state;
    /* A 25 MHz crystal at a ratio of 168/2: 2.1 GHz. */
    gar_x86_cpuid cpuid = { .max_leaf = 0x1f, .leaf15_eax = 2, .leaf15_ebx = 168,
                            .leaf15_ecx = 25000000 };
    assert_int_equal(gar_x86_tsc_hz_from_cpuid(&cpuid), UINT64_C(2100000000));
    /* A 38.4 MHz crystal at 250/3, whose product is past 32 bits. */
    cpuid.leaf15_eax = 3;
    cpuid.leaf15_ebx = 250;
    cpuid.leaf15_ecx = 38400000;
    assert_int_equal(gar_x86_tsc_hz_from_cpuid(&cpuid), UINT64_C(3200000000));
    /* A rate that does not divide is rounded down. */
    cpuid.leaf15_ecx = 1;
    assert_int_equal(gar_x86_tsc_hz_from_cpuid(&cpuid), 83);

    /* Any word 0 (this VM reports all three 0), or no leaf 15h: unknown. */
    const gar_x86_cpuid unknown[] = {
        { .max_leaf = 0x1f, .leaf15_eax = 0, .leaf15_ebx = 168, .leaf15_ecx = 25000000 },
        { .max_leaf = 0x1f, .leaf15_eax = 2, .leaf15_ebx = 0, .leaf15_ecx = 25000000 },
        { .max_leaf = 0x1f, .leaf15_eax = 2, .leaf15_ebx = 168, .leaf15_ecx = 0 },
        { .max_leaf = 0x14, .leaf15_eax = 2, .leaf15_ebx = 168, .leaf15_ecx = 25000000 },
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        assert_int_equal(gar_x86_tsc_hz_from_cpuid(&unknown[i]), 0);
    assert_int_equal(gar_x86_tsc_hz_from_cpuid(NULL), 0);
}

static void ns_convert_to_ticks_exactly_and_saturate(void **state)
{
    (void)state;
    __extension__ typedef unsigned __int128 wide;
    const uint64_t ns[] = { 0, 1, 999, 1000, 123456789, GAR_NS_PER_S, GAR_NS_PER_S + 1,
                            UINT64_C(86400) * GAR_NS_PER_S + 7, UINT64_C(1) << 50 };
    const uint64_t hz[] = { 1, 1000000, 19200000, 2100000000, 3999999999,
                            UINT64_C(25000000000), UINT64_C(1) << 40 };
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        for (size_t j = 0; j < sizeof hz / sizeof hz[0]; j++) {
            wide exact = (wide)ns[i] * hz[j] / GAR_NS_PER_S;
            uint64_t want = exact > UINT64_MAX ? UINT64_MAX : (uint64_t)exact;
            assert_int_equal(gar_ns_to_ticks(ns[i], hz[j]), want);
        }
    }
    assert_int_equal(gar_ns_to_ticks(UINT64_MAX, 3000000000u), UINT64_MAX);
    assert_int_equal(gar_ns_to_ticks(UINT64_MAX, 0), 0);
}

static void the_probe_agrees_with_this_cpu(void **state)
{
    (void)state;
    gar_word_wait wait;
    int offered = gar_word_wait_probe(&wait, NULL);
    assert_true(offered == 0 || offered == 1);
    assert_int_equal(offered, wait.kind != GAR_WORD_WAIT_NONE);
    if (offered) {
        assert_null(wait.why);
        assert_true(wait.tick_hz >= 1000000);
        assert_non_null(wait.tick_hz_source);
        assert_string_not_equal(wait.name, "none");
    } else {
        assert_non_null(wait.why);
        assert_string_equal(wait.name, "none");
        assert_int_equal(wait.tick_hz, 0);
        assert_null(wait.tick_hz_source);
    }
#if defined(__x86_64__) && defined(__GNUC__)
    /* Read the CPU's words here, independently, and decide from them: the
     * probe must not offer what this CPU's own CPUID does not. */
    gar_x86_cpuid cpuid = { 0 };
    unsigned a, b, c, d;
    cpuid.max_leaf = __get_cpuid_max(0, NULL);
    if (cpuid.max_leaf >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        cpuid.leaf7_ecx = c;
    }
    cpuid.max_ext_leaf = __get_cpuid_max(0x80000000u, NULL);
    if (cpuid.max_ext_leaf >= 0x80000001u) {
        __cpuid(0x80000001u, a, b, c, d);
        cpuid.ext1_ecx = c;
    }
    (void)a, (void)b, (void)d;
    gar_word_wait_choice choice = gar_word_wait_decide_x86(&cpuid);
    if (choice.kind == GAR_WORD_WAIT_NONE) {
        assert_int_equal(wait.kind, GAR_WORD_WAIT_NONE);
        assert_string_equal(wait.why, choice.why);
    } else if (offered) {
        assert_int_equal(wait.kind, choice.kind);
    }
#elif !defined(__aarch64__)
    assert_false(offered);
#endif

    gar_error err;
    assert_int_equal(gar_word_wait_probe(NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "out");
}

static void park_refuses_what_is_not_a_probed_word_wait(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(&line, seen);
    gar_error err;

    gar_word_wait refused = { .kind = GAR_WORD_WAIT_NONE, .name = "none", .why = "test" };
    assert_int_equal(gar_word_wait_park(&refused, &line, seen, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "wait");

    /* Another architecture's kind is refused, never run. */
#if defined(__aarch64__)
    gar_word_wait foreign = { .kind = GAR_WORD_WAIT_UMWAIT, .tick_hz = 1000000000 };
#else
    gar_word_wait foreign = { .kind = GAR_WORD_WAIT_WFET, .tick_hz = 1000000000 };
#endif
    assert_int_equal(gar_word_wait_park(&foreign, &line, seen, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "wait");

    assert_int_equal(gar_word_wait_park(NULL, &line, seen, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "wait");
    assert_int_equal(gar_word_wait_park(&refused, NULL, seen, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "line");
    assert_int_equal(gar_word_wait_park(&refused, &line, NULL, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "seen");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(x86_waitpkg_gives_umwait),
        cmocka_unit_test(x86_monitorx_gives_mwaitx),
        cmocka_unit_test(x86_without_either_is_refused_with_the_bits_named),
        cmocka_unit_test(x86_bits_count_only_in_leaves_the_cpu_has),
        cmocka_unit_test(arm64_wfxt_gives_wfet_and_the_event_stream_wfe),
        cmocka_unit_test(arm64_without_a_bound_is_refused),
        cmocka_unit_test(the_tsc_rate_comes_from_leaf_15h_only_when_it_enumerates),
        cmocka_unit_test(ns_convert_to_ticks_exactly_and_saturate),
        cmocka_unit_test(the_probe_agrees_with_this_cpu),
        cmocka_unit_test(park_refuses_what_is_not_a_probed_word_wait),
    };
    return cmocka_run_group_tests_name("word_wait", tests, NULL, NULL);
}
