/* experiments/report/plot_verify.c — verify-N: a verification's real and
 * simulated overshoot CDFs on one chart (plot.h). */
#include "report/plot.h"

#include <stdio.h>

#include "report/gnuplot_text.h"
#include "report/plot_draw.h"
#include "report/plot_layout.h"
#include "sweep/format.h"
#include "verify/verifications.h"

int gar_plot_verification(const gar_verification *v, unsigned n, const char *dir,
                          gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    if (rc < 0)
        return rc;
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "verify-%u", n);
    gar_plot_paths pf;
    gar_plot_paths_name(&pf, base);
    FILE *dat = gar_plot_open_data(dir, &pf, err);
    if (dat == NULL)
        return -GAR_E_IO;
    fprintf(dat, "# gar plot data: verification %u, trace %s, plan %s, estimator %s, %llu waits"
                 " on %s.\n# level real_overshoot_us sim_overshoot_us (nearest rank)\n",
            n, v->trace_name, v->plan_ran, v->estimator, (unsigned long long)v->waits,
            v->device);
    for (unsigned k = 0; k < GAR_VERIFY_CDF_LEVELS; k++)
        /* A log axis cannot show 0: a zero overshoot is drawn at 1 ns. */
        fprintf(dat, "%.4f %.6g %.6g\n", (double)k / (GAR_VERIFY_CDF_LEVELS - 1),
                (double)(v->real_cdf[k] > 0 ? v->real_cdf[k] : 1) / 1e3,
                (double)(v->sim_cdf[k] > 0 ? v->sim_cdf[k] : 1) / 1e3);
    FILE *gp = gar_plot_script_after_data(dir, dat, &pf, err);
    if (gp == NULL)
        return -GAR_E_IO;
    char trace[GAR_VERIFY_TEXT * 2], plan[GAR_VERIFY_TEXT * 2], est[GAR_VERIFY_TEXT * 2];
    gar_gnuplot_double(v->trace_name, trace, sizeof trace);
    gar_gnuplot_double(v->plan_ran, plan, sizeof plan);
    gar_gnuplot_double(v->estimator, est, sizeof est);
    fprintf(gp,
            "# gar plot: real and simulated overshoot CDFs of one verified arm.\n"
            "# Data: %s.  Re-draw: gnuplot %s\n",
            pf.dat, pf.gp);
    gar_plot_terminal(gp, GAR_VERIFY_W_PX, GAR_VERIFY_H_PX, pf.png);
    fprintf(gp,
            "set title \"This machine against the simulator: trace %s, estimator %s, %llu waits\\n"
            "{/*0.8 plan %s; KS D %.3f, %s}\" font ',12'\n"
            "set xlabel 'overshoot (µs, log)'\n"
            "set ylabel 'fraction of waits'\n"
            "set logscale x\n"
            "set format x '%%g'\n"
            "set yrange [0:1]\n"
            "set grid\n"
            "set key bottom right box opaque\n"
            "plot '%s' using 2:1 with steps lw 2 lc rgb '#0072b2' title 'real (%s)', \\\n"
            "     '' using 3:1 with steps lw 2 dt 2 lc rgb '#d55e00' title 'simulated'\n",
            trace, est, (unsigned long long)v->waits, plan, v->ks_d,
            v->verdict, pf.dat, v->device);
    return gar_plot_draw_and_list(dir, gp, &pf, files, v->trace, "", err,
               "Trace %s, plan %s, estimator %s: the overshoot CDF of %llu waits run for real "
               "(%s device) and simulated with this machine's profile; KS D %.3f (%s).",
               v->trace_name, v->plan_ran, v->estimator, (unsigned long long)v->waits,
               v->device, v->ks_d, v->verdict);
}
