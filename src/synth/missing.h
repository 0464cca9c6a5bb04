/* The binaries a window needed and did not have, charged to the image
 * cache once per window (sy_image_cache_charge), so that "needed by N
 * windows" counts windows, whatever the decode jobs were, and names what
 * sy_window_missing names for each window (one rule for both). */
#ifndef SY_MISSING_H
#define SY_MISSING_H

#include "config.h"
#include "window.h"

/* Charges @cfg's image cache with each binary whose missing code made one
 * of @w's decode errors (the first error of each of its stretches), once
 * each.  After the window's counts are summed (validate.c). */
void sy_win_charge_missing(const struct sy_synth_config *cfg,
			   const struct sy_win *w);

#endif
