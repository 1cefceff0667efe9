/* backends/gpu/mapped_port.c — a GPU stream's completion port on a mapped line. */

#include <assert.h>
#include <stddef.h>

#include <gar/mapped.h>

#include "core/ops_version.h"
#include "cpu_relax.h"

int gar_mapped_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                         void *stream, gar_idle idle, gar_error *err)
{
    if (port == NULL || line == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_port_init",
                             port == NULL ? "port" : "line", "is NULL");
    if (line->state != GAR_MAPPED_LIVE)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_port_init", "line",
                             "is not a live line");
    if (idle.ops == NULL || idle.ops->park == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_port_init", "idle",
                             "has no park operation");
    int checked = gar__ops_version_check("gar_mapped_port_init", "gar_idle_ops", idle.ops->version,
                                         GAR_IDLE_OPS_VERSION, err);
    if (checked < 0)
        return checked;
    assert(slot.index < GAR_LINE_WORDS); /* a gar_slot is checked when made */
    const uint8_t bit = (uint8_t)(1u << slot.index);
    if (line->bound & bit)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_port_init", "slot",
                             "is already bound to a stream");

    int owns = line->ops->owns_stream(line->drv, &line->domain, stream, err);
    if (owns < 0)
        return owns;
    if (owns == 0)
        return gar_mapped_fail(err, GAR_MAPPED_FAULT_FOREIGN_STREAM,
                               "bind a stream to a mapped line",
                               "the stream belongs to another context than the line's");

    line->bound |= bit;
    *port = (gar_mapped_port){ .line = line, .stream = stream, .slot = slot, .idle = idle };
    return 0;
}

void gar_mapped_port_fini(gar_mapped_port *port)
{
    if (port == NULL || port->line == NULL)
        return;
    port->line->bound &= (uint8_t)~(1u << port->slot.index);
    port->line = NULL;
}

uint64_t gar_mapped_port_issued(const gar_mapped_port *port)
{
    assert(port != NULL && port->line != NULL);
    return port->line->issued[port->slot.index];
}

/* ---- the port's ops ------------------------------------------------------- */

static int port_query(void *ctx, gar_error *err)
{
    gar_mapped_port *port = ctx;
    assert(port != NULL && port->line != NULL);
    return port->line->ops->query(port->line->drv, &port->line->domain, port->stream, err);
}

static int port_block(void *ctx, gar_error *err)
{
    gar_mapped_port *port = ctx;
    assert(port != NULL && port->line != NULL);
    return port->line->ops->synchronize(port->line->drv, &port->line->domain, port->stream,
                                         err);
}

static int port_poll(void *ctx, gar_error *err)
{
    /* The hint goes before the query, so back-to-back polls are spaced by it
     * and the first poll after a wait's decision is not delayed by much. */
    gar_cpu_relax();
    return port_query(ctx, err);
}

static int port_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    gar_mapped_port *port = ctx;
    assert(port != NULL && port->line != NULL);
    if (word == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_port arm", "word",
                             "is NULL");
    gar_mapped_line *line = port->line;
    const unsigned slot = port->slot.index;
    const uint64_t next = line->issued[slot] + 1; /* wraps: reached is in wrapping order */
    const uint64_t addr = line->device_addr + (uint64_t)slot * sizeof(uint64_t);
    int rc = line->ops->write_value(line->drv, &line->domain, port->stream, addr, next, err);
    if (rc < 0)
        return rc;
    line->issued[slot] = next;
    *word = (gar_descriptor){ .line = line->line, .slot = port->slot, .target = next };
    return 0;
}

static int port_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    gar_mapped_port *port = ctx;
    assert(port != NULL && port->line != NULL);
    if (word == NULL || word->line != port->line->line || word->slot.index != port->slot.index)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_mapped_port park", "word",
                             "is not a descriptor this port armed");
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(word->line, seen);
    /* Checked after the snapshot: a store landing in between changes the
     * line from `seen`, so the park returns at once instead of missing it. */
    if (gar_seq_reached(seen[word->slot.index], word->target))
        return 1;
    int rc = port->idle.ops->park(port->idle.ctx, word->line, seen, until, err);
    if (rc < 0)
        return rc;
    return gar_descriptor_reached(word) ? 1 : 0;
}

static const gar_port_ops mapped_port_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = port_query,
    .block = port_block,
    .poll = port_poll,
    .arm = port_arm,
    .park = port_park,
};

gar_port gar_mapped_port_port(gar_mapped_port *port)
{
    assert(port != NULL && port->line != NULL); /* bound by gar_mapped_port_init */
    return (gar_port){ .ops = &mapped_port_ops, .ctx = port };
}
