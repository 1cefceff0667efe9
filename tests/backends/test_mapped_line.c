/* tests/backends/test_mapped_line.c — the mapped line and port over a vendor
 * table of the test's own (host memory, no GPU): a table, or an Idle port,
 * whose version this libgar does not know is refused before any of its ops
 * is called, and one of the current version is used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/mapped.h>

#define STREAM ((void *)(uintptr_t)0x5000)

static _Alignas(GAR_MAPPED_PAGE_BYTES) unsigned char page[GAR_MAPPED_PAGE_BYTES];
static unsigned vendor_calls; /* every op of the vendor table counts here */
static const char drv[] = "the test's driver";

static const char *v_missing(const void *d)
{
    (void)d;
    vendor_calls++;
    return NULL;
}

static int v_retain(const void *d, int ordinal, gar_mapped_domain *domain, gar_error *err)
{
    (void)d;
    (void)err;
    vendor_calls++;
    *domain = (gar_mapped_domain){ .ordinal = ordinal, .device = ordinal, .context = page };
    return 0;
}

static int v_domain_op(const void *d, const gar_mapped_domain *domain, gar_error *err)
{
    (void)d;
    (void)domain;
    (void)err;
    vendor_calls++;
    return 0;
}

static int v_map(const void *d, const gar_mapped_domain *domain, size_t bytes, void **host,
                 uint64_t *device_addr, gar_error *err)
{
    (void)d;
    (void)domain;
    (void)err;
    vendor_calls++;
    assert_int_equal(bytes, sizeof page);
    *host = page;
    *device_addr = (uint64_t)(uintptr_t)page;
    return 0;
}

static int v_unmap(const void *d, const gar_mapped_domain *domain, void *host, gar_error *err)
{
    (void)d;
    (void)domain;
    (void)err;
    vendor_calls++;
    assert_ptr_equal(host, page);
    return 0;
}

static int v_stream_op(const void *d, const gar_mapped_domain *domain, void *stream,
                       gar_error *err)
{
    (void)d;
    (void)domain;
    (void)err;
    vendor_calls++;
    return stream == STREAM; /* owns_stream: ours; query: done */
}

static int v_write_value(const void *d, const gar_mapped_domain *domain, void *stream,
                         uint64_t device_addr, uint64_t value, gar_error *err)
{
    (void)d;
    (void)domain;
    (void)stream;
    (void)device_addr;
    (void)value;
    (void)err;
    vendor_calls++;
    return 0;
}

static const gar_mapped_ops vendor = {
    .version = GAR_MAPPED_OPS_VERSION,
    .missing = v_missing,
    .retain = v_retain,
    .release = v_domain_op,
    .map = v_map,
    .unmap = v_unmap,
    .settle = v_domain_op,
    .owns_stream = v_stream_op,
    .query = v_stream_op,
    .synchronize = v_stream_op,
    .write_value = v_write_value,
};

static int idle_sleep(void *ctx, gar_mono_ns until, gar_error *err)
{
    (void)ctx;
    (void)until;
    (void)err;
    return 0;
}

static int idle_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                     gar_mono_ns until, gar_error *err)
{
    (void)ctx;
    (void)line;
    (void)seen;
    (void)until;
    (void)err;
    return 0;
}

static const gar_idle_ops idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = idle_sleep,
    .park = idle_park,
};

static void a_vendor_table_of_an_unknown_version_is_refused_before_any_op(void **state)
{
    (void)state;
    const unsigned unknown[] = { 0, GAR_MAPPED_OPS_VERSION + 1 };
    for (size_t v = 0; v < sizeof unknown / sizeof unknown[0]; v++) {
        gar_mapped_ops table = vendor;
        table.version = unknown[v];
        gar_mapped_line line;
        gar_error err;
        vendor_calls = 0;
        assert_int_equal(gar_mapped_line_create(&line, &table, drv, 0, &err),
                         -GAR_E_OPS_VERSION);
        assert_int_equal(err.code, GAR_E_OPS_VERSION);
        assert_string_equal(err.argv[0], "gar_mapped_line_create");
        assert_string_equal(err.argv[1], "gar_mapped_ops");
        assert_int_equal(line.state, GAR_MAPPED_UNSET);
        assert_int_equal(vendor_calls, 0);
    }
}

static void a_table_of_the_current_version_makes_a_live_line(void **state)
{
    (void)state;
    gar_mapped_line line;
    vendor_calls = 0;
    assert_int_equal(gar_mapped_line_create(&line, &vendor, drv, 0, NULL), 0);
    assert_int_equal(line.state, GAR_MAPPED_LIVE);
    assert_ptr_equal(line.line, (gar_line *)(void *)page);
    assert_true(vendor_calls > 0);
    assert_int_equal(gar_mapped_line_release(&line, NULL), 0);
    assert_int_equal(line.state, GAR_MAPPED_RELEASED);
}

static void a_port_refuses_an_idle_of_an_unknown_version(void **state)
{
    (void)state;
    gar_mapped_line line;
    assert_int_equal(gar_mapped_line_create(&line, &vendor, drv, 0, NULL), 0);
    gar_slot slot;
    assert_int_equal(gar_slot_make(2, &slot, NULL), 0);
    gar_idle_ops later = idle_ops;
    later.version = GAR_IDLE_OPS_VERSION + 1;
    gar_mapped_port port;
    gar_error err;
    assert_int_equal(gar_mapped_port_init(&port, &line, slot, STREAM,
                                          (gar_idle){ &later, NULL }, &err),
                     -GAR_E_OPS_VERSION);
    assert_string_equal(err.argv[0], "gar_mapped_port_init");
    assert_string_equal(err.argv[1], "gar_idle_ops");
    assert_int_equal(line.bound, 0); /* nothing bound */
    /* The current version binds the slot. */
    assert_int_equal(gar_mapped_port_init(&port, &line, slot, STREAM,
                                          (gar_idle){ &idle_ops, NULL }, NULL),
                     0);
    assert_int_equal(line.bound, 1u << 2);
    gar_mapped_port_fini(&port);
    assert_int_equal(gar_mapped_line_release(&line, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_vendor_table_of_an_unknown_version_is_refused_before_any_op),
        cmocka_unit_test(a_table_of_the_current_version_makes_a_live_line),
        cmocka_unit_test(a_port_refuses_an_idle_of_an_unknown_version),
    };
    return cmocka_run_group_tests_name("mapped_line", tests, NULL, NULL);
}
