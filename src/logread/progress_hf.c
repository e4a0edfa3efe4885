/* Hugging Face Trainer's epochs (progress.h): one bar over all steps, its log dicts' 'epoch'. */
#include "logread/progress.h"
#include "logread/progress_priv.h"

#include <math.h>
#include <stddef.h>

/* Hugging Face: one bar over all steps; the steps of an epoch are count / 'epoch'. */
void gw_progress_hf_starts(gw_progress *p)
{
    if (p->nst || !p->nhf || !p->nsm)
        return;
    double spe = 0;
    for (size_t i = 0; i < p->nhf; i++)
        if (p->hf[i].epoch > 0 && p->hf[i].n > 0)
            spe = (double)p->hf[i].n / p->hf[i].epoch;
    if (!(spe >= 1))
        return;
    long per = lround(spe);
    long epochs = lround((double)p->sm[p->nsm - 1].total / (double)per);
    p->zero_based = 0;
    p->hf_per = per;
    for (long k = 0; k < epochs; k++) {
        /* epoch k+1 starts with the first draw that shows one of its steps */
        for (size_t i = 0; i < p->nsm; i++) {
            if (p->sm[i].total == p->train_total && (k == 0 || p->sm[i].n > k * per)) {
                gw_progress_add_start(p, k + 1, epochs, false, p->sm[i].t_ms, i, NULL, NULL);
                break;
            }
        }
    }
}

/* The Hugging Face bar's last count. */
long gw_progress_hf_count(const gw_progress *p)
{
    long n = 0;
    for (size_t i = 0; i < p->nsm; i++)
        if (p->sm[i].total == p->train_total && p->sm[i].n > n)
            n = p->sm[i].n;
    return n;
}
