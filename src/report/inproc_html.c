#include "report/inproc.h"
void gw_report_inproc_html(gw_buf *b, const gw_analysis *a)
{
    (void)b;
    (void)a;
}
