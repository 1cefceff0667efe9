/* core/line.c — construction of lines and slots; the hot reads are inline. */
#include <gar/line.h>

#include "text.h"

void gar_line_init(gar_line *line)
{
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++)
        atomic_init(&line->words[i], 0);
}

int gar_slot_make(unsigned index, gar_slot *out, gar_error *err)
{
    if (index >= GAR_LINE_WORDS) {
        char why[64];
        gar__text_out text = gar__text_out_make(why, sizeof why);
        gar__text_puts(&text, "is ");
        gar__text_put_u64(&text, index);
        gar__text_puts(&text, ", not a slot (0..7)");
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_slot_make", "index", why);
    }
    out->index = (uint8_t)index;
    return 0;
}
