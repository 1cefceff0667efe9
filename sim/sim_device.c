/* sim/sim_device.c — in-order streams, their status, and their stores. */
#include "sim_device.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const fault_names[] = {
    [GAR_SIM_FAULT_NONE] = "none",
    [GAR_SIM_FAULT_ERROR] = "error",
    [GAR_SIM_FAULT_HANG] = "hang",
    [GAR_SIM_FAULT_LOST_STORE] = "lost-store",
    [GAR_SIM_FAULT_LATE_STORE] = "late-store",
};
#define FAULT_COUNT (sizeof fault_names / sizeof fault_names[0])

const char *gar_sim_fault_name(gar_sim_fault fault)
{
    return (unsigned)fault < FAULT_COUNT ? fault_names[fault] : "?";
}

int gar_sim_fault_from_name(const char *name)
{
    for (unsigned i = 0; name != NULL && i < FAULT_COUNT; i++)
        if (strcmp(name, fault_names[i]) == 0)
            return (int)i;
    return -1;
}

int gar_sim_device_init(gar_sim_device *dev, const gar_sim_device_options *options,
                        gar_error *err)
{
    if (dev == NULL || options == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_init",
                             dev == NULL ? "dev" : "options", "is NULL");
    if (options->streams < 1 || options->streams > GAR_SIM_STREAMS_MAX)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_init", "streams",
                             "is not 1..8");
    memset(dev, 0, sizeof *dev);
    gar_line_init(&dev->line);
    dev->options = *options;
    for (unsigned s = 0; s < GAR_SIM_STREAMS_MAX; s++) {
        dev->streams[s].next_seq = 1;
        dev->streams[s].store_at = GAR_MONO_NEVER;
    }
    return 0;
}

int gar_sim_device_enqueue(gar_sim_device *dev, unsigned stream, gar_mono_ns submit,
                           gar_dur_ns duration, gar_sim_fault fault, gar_sim_work *out,
                           gar_error *err)
{
    if (dev == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_enqueue",
                             dev == NULL ? "dev" : "out", "is NULL");
    if (stream >= dev->options.streams)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_enqueue", "stream",
                             "is past the device's streams");
    if ((unsigned)fault >= FAULT_COUNT)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_enqueue", "fault",
                             "is not a gar_sim_fault");
    gar_sim_stream *s = &dev->streams[stream];
    gar_mono_ns done = GAR_MONO_NEVER;
    if (fault != GAR_SIM_FAULT_HANG && s->last_done != GAR_MONO_NEVER) {
        gar_mono_ns begin = submit > s->last_done ? submit : s->last_done;
        done = gar_after(begin, duration);
        if (done == GAR_MONO_NEVER)
            done = GAR_MONO_NEVER - 1;
    }
    s->last_done = done;
    *out = (gar_sim_work){
        .stream = stream,
        .index = s->items++,
        .done_at = done,
        .fault = fault,
        .armed = false,
        .store_at = GAR_MONO_NEVER,
    };
    return 0;
}

int gar_sim_device_fault_status(const gar_sim_work *work, gar_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "stream %u work item %llu failed", work->stream,
             (unsigned long long)work->index);
    return gar_error_set(err, GAR_E_DEVICE_FAULT, 1, what);
}

void gar_sim_device_arm(gar_sim_device *dev, gar_sim_work *work, gar_mono_ns now)
{
    assert(work->stream < dev->options.streams);
    gar_sim_stream *s = &dev->streams[work->stream];
    gar_sim_device_land_due(dev, work->stream, now);
    uint64_t value = s->next_seq++;
    work->armed = true;
    work->word = (gar_descriptor){ &dev->line, { (uint8_t)work->stream }, value };
    work->store_at = GAR_MONO_NEVER;
    switch (work->fault) {
    case GAR_SIM_FAULT_ERROR:
    case GAR_SIM_FAULT_HANG:
    case GAR_SIM_FAULT_LOST_STORE:
        return; /* the store never lands */
    case GAR_SIM_FAULT_NONE:
    case GAR_SIM_FAULT_LATE_STORE:
        break;
    }
    gar_mono_ns from = work->done_at > now ? work->done_at : now;
    gar_mono_ns at = gar_after(from, dev->options.store_delay_ns);
    if (work->fault == GAR_SIM_FAULT_LATE_STORE)
        at = gar_after(at, dev->options.late_store_ns);
    if (s->store_at != GAR_MONO_NEVER && s->store_at > at)
        at = s->store_at; /* in order behind the store still in flight */
    s->store_at = at;
    s->store_value = value;
    work->store_at = at;
}
